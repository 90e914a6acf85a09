import { describe, expect, it } from 'vitest';
import type { LanguageId } from '../../src/code-context/outline-types.js';
import { PathIndex, resolveImport } from '../../src/code-context/resolve-imports.js';

const index = new PathIndex([
  'src/app.ts',
  'src/util/format.ts',
  'src/util/index.ts',
  'web/Button.tsx',
  'lib/view.js',
  'requests/__init__.py',
  'requests/compat.py',
  'requests/adapters/__init__.py',
  'requests/adapters/http.py',
  'internal/bytesconv/bytesconv.go',
  'internal/bytesconv/bytesconv_test.go',
  'gson/src/main/java/com/google/gson/Gson.java',
  'okio/src/commonMain/kotlin/okio/Buffer.kt',
  'src/Promise/EachPromise.php',
  'lib/rack/constants.rb',
  'lib/rack/etag.rb',
  'src/include/log.h',
  'src/log.c',
  'src/chain.rs',
  'src/error/mod.rs',
]);

const resolve = (from: string, source: string, language: LanguageId, names: string[] = []) => resolveImport(from, { source, names, line: 1 }, language, index);

describe('imports resolved to repository files', () => {
  it('JavaScript and TypeScript: relative paths with or without extension, NodeNext .js, index files; packages stay outside', () => {
    expect(resolve('src/app.ts', './util/format', 'typescript')).toEqual(['src/util/format.ts']);
    expect(resolve('src/app.ts', './util/format.js', 'typescript')).toEqual(['src/util/format.ts']);
    expect(resolve('src/app.ts', './util', 'typescript')).toEqual(['src/util/index.ts']);
    expect(resolve('web/page.tsx', './Button', 'tsx')).toEqual(['web/Button.tsx']);
    expect(resolve('lib/app.js', 'express', 'javascript')).toEqual([]);
  });

  it('Python: relative modules, `from . import x`, packages by their dotted name', () => {
    expect(resolve('requests/sessions.py', '.compat', 'python')).toEqual(['requests/compat.py']);
    expect(resolve('requests/sessions.py', '.', 'python', ['compat', 'missing'])).toEqual(['requests/compat.py']);
    expect(resolve('requests/adapters/http.py', '..compat', 'python')).toEqual(['requests/compat.py']);
    expect(resolve('tests/test_a.py', 'requests.adapters', 'python')).toEqual(['requests/adapters/__init__.py']);
    expect(resolve('tests/test_a.py', 'os.path', 'python')).toEqual([]);
  });

  it('Go: the package folder named by the import path, without tests', () => {
    expect(resolve('auth.go', 'github.com/gin-gonic/gin/internal/bytesconv', 'go')).toEqual(['internal/bytesconv/bytesconv.go']);
    expect(resolve('auth.go', 'net/http', 'go')).toEqual([]);
  });

  it('Java, Kotlin and PHP by the path their name maps to; Ruby, C and Rust by their rules', () => {
    expect(resolve('A.java', 'com.google.gson.Gson', 'java')).toEqual(['gson/src/main/java/com/google/gson/Gson.java']);
    expect(resolve('A.kt', 'okio.Buffer', 'kotlin')).toEqual(['okio/src/commonMain/kotlin/okio/Buffer.kt']);
    expect(resolve('src/Pool.php', 'GuzzleHttp\\Promise\\EachPromise', 'php')).toEqual(['src/Promise/EachPromise.php']);
    expect(resolve('lib/rack/etag.rb', './constants', 'ruby')).toEqual(['lib/rack/constants.rb']);
    expect(resolve('spec/a.rb', 'rack/etag', 'ruby')).toEqual(['lib/rack/etag.rb']);
    expect(resolve('src/log.c', 'log.h', 'c')).toEqual(['src/include/log.h']);
    expect(resolve('src/lib.rs', 'crate::chain::Chain', 'rust')).toEqual(['src/chain.rs']);
    expect(resolve('src/lib.rs', 'crate::error::{ErrorImpl, Own}', 'rust')).toEqual(['src/error/mod.rs']);
    expect(resolve('A.cs', 'Polly.Utils', 'csharp')).toEqual([]);
  });
});
