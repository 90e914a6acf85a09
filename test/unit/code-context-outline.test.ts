import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { definitionsNamed, enclosingScope } from '../../src/code-context/find-symbols.js';
import { languageForPath } from '../../src/code-context/language-specs.js';
import { DEFAULT_OUTLINE_LIMITS, outlineFile, type OutlineLimits } from '../../src/code-context/outline-file.js';
import type { CodeSymbol, FileOutline } from '../../src/code-context/outline-types.js';

/**
 * Real files of real projects (test/fixtures/code-context/languages/SOURCES.md says which), stored
 * with a `.txt` suffix so the project's own tools leave them alone.
 */
const FIXTURES = new URL('../fixtures/code-context/languages/', import.meta.url);
// The machine running the tests may be busy: only the time-limit test relies on the limit.
const RELAXED: OutlineLimits = { ...DEFAULT_OUTLINE_LIMITS, timeoutMs: 60_000 };

async function outline(name: string): Promise<FileOutline> {
  const result = await outlineFile(name, readFileSync(new URL(`${name}.txt`, FIXTURES), 'utf8'), RELAXED);
  if (!result.ok) throw new Error(`${name}: ${result.reason}`);
  return result.outline;
}

function symbol(file: FileOutline, name: string, container?: string): CodeSymbol {
  const found = definitionsNamed(file, container ? `${container}.${name}` : name);
  expect(found, name).toHaveLength(1);
  return found[0]!;
}

const scopeAt = (file: FileOutline, line: number) => enclosingScope(file, line, line)?.name;
const calledOn = (file: FileOutline, line: number) => file.references.filter((ref) => ref.line === line && ref.kind === 'call').map((ref) => ref.name);

describe('outline of each language, on real files', () => {
  it('Python (requests): classes, methods, decorators, docstrings, relative imports, calls', async () => {
    const file = await outline('structures.py');
    expect(file.language).toBe('python');
    expect(symbol(file, 'CaseInsensitiveDict')).toMatchObject({ kind: 'class', startLine: 20, endLine: 93, docStartLine: 21, docEndLine: 45 });
    expect(symbol(file, 'lower_items', 'CaseInsensitiveDict')).toMatchObject({ kind: 'method', startLine: 76, endLine: 78, docStartLine: 77 });
    // A multi-line signature is the header; `@overload` belongs to the definition.
    expect(symbol(file, '__init__', 'CaseInsensitiveDict')).toMatchObject({ startLine: 49, headerEndLine: 53 });
    expect(definitionsNamed(file, 'LookupDict.get')[0]).toMatchObject({ startLine: 123 });
    expect(file.imports).toContainEqual({ source: '.compat', names: ['MutableMapping'], line: 14 });
    expect(file.imports).toContainEqual({ source: 'collections.abc', names: ['Iterable', 'Iterator', 'Mapping'], line: 11 });
    expect(calledOn(file, 86)).toEqual(expect.arrayContaining(['dict', 'lower_items']));
    expect(scopeAt(file, 84)).toBe('__eq__');
  });

  it('JavaScript (express): prototype methods named by their assignment, doc comments after a blank line, require()', async () => {
    const file = await outline('view.js');
    expect(symbol(file, 'View')).toMatchObject({ kind: 'function', startLine: 52, endLine: 95, docStartLine: 38, docEndLine: 50 });
    expect(symbol(file, 'lookup')).toMatchObject({ startLine: 104, endLine: 123, docStartLine: 97 });
    expect(file.imports).toContainEqual({ source: 'node:path', names: ['path'], line: 17 });
    // Inside a nested callback, the scope is the named function around it.
    expect(scopeAt(file, 154)).toBe('renderTick');
    expect(calledOn(file, 174)).toContain('tryStat');
  });

  it('TypeScript (ms): overloads, type aliases, interfaces, JSDoc', async () => {
    const file = await outline('ms.ts');
    expect(symbol(file, 'parse')).toMatchObject({ kind: 'function', startLine: 71, endLine: 147, docStartLine: 64, docEndLine: 70 });
    expect(symbol(file, 'Options')).toMatchObject({ kind: 'type', startLine: 34, endLine: 39 });
    expect(symbol(file, 'plural')).toMatchObject({ startLine: 236, headerEndLine: 241 });
    expect(file.references).toContainEqual({ name: 'StringValue', line: 156, kind: 'type' });
    expect(scopeAt(file, 100)).toBe('parse');
  });

  it('TSX (react-redux): JSX, generic components, type-only imports', async () => {
    const file = await outline('Provider.tsx');
    expect(file.language).toBe('tsx');
    expect(symbol(file, 'Provider')).toMatchObject({ kind: 'function', startLine: 57, endLine: 103 });
    expect(symbol(file, 'ProviderProps')).toMatchObject({ kind: 'type', startLine: 10 });
    expect(file.imports).toContainEqual({ source: '../utils/Subscription', names: ['createSubscription'], line: 5 });
    expect(file.imports).toContainEqual({ source: 'redux', names: ['Action', 'Store', 'UnknownAction'], line: 3 });
    expect(calledOn(file, 63)).toContain('createSubscription');
    // The `useMemo` callback is nameless: the scope is the component.
    expect(scopeAt(file, 64)).toBe('Provider');
  });

  it('Go (gin): methods with their receiver, type specs, doc comments, import paths', async () => {
    const file = await outline('auth.go');
    expect(symbol(file, 'searchCredential', 'authPairs')).toMatchObject({ kind: 'method', startLine: 32, endLine: 42 });
    expect(symbol(file, 'BasicAuthForRealm')).toMatchObject({ kind: 'function', startLine: 48, endLine: 68, docStartLine: 44, docEndLine: 47 });
    expect(symbol(file, 'Accounts')).toMatchObject({ kind: 'type', startLine: 23, docStartLine: 22 });
    expect(file.imports).toContainEqual({ source: 'github.com/gin-gonic/gin/internal/bytesconv', names: ['bytesconv'], line: 13 });
    expect(calledOn(file, 53)).toContain('processAccounts');
    expect(scopeAt(file, 58)).toBe('BasicAuthForRealm');
  });

  it('Java (gson): class, constructor, methods with Javadoc, imports', async () => {
    const file = await outline('FieldAttributes.java');
    expect(symbol(file, 'FieldAttributes', 'FieldAttributes')).toMatchObject({ kind: 'method', startLine: 43 });
    expect(symbol(file, 'getDeclaredType')).toMatchObject({ kind: 'method', startLine: 84, endLine: 86, docStartLine: 65, docEndLine: 83 });
    expect(symbol(file, 'toString')).toMatchObject({ startLine: 145 }); // @Override is part of it
    expect(file.imports).toContainEqual({ source: 'java.util.Objects', names: ['Objects'], line: 24 });
    expect(calledOn(file, 44)).toContain('requireNonNull');
  });

  it('Rust (anyhow): impl blocks, attributes before items, use lists', async () => {
    const file = await outline('chain.rs');
    expect(definitionsNamed(file, 'Chain.new')[0]).toMatchObject({ kind: 'method', startLine: 27, endLine: 32, headerEndLine: 28 });
    expect(file.symbols.filter((item) => item.name === 'Chain' && item.kind === 'class')).toHaveLength(5);
    expect(file.imports).toContainEqual({ source: 'alloc::vec::{self,Vec}', names: ['Vec'], line: 5 });
    expect(calledOn(file, 42)).toContain('source');
  });

  it('Ruby (rack): modules, classes, predicate methods, require_relative', async () => {
    const file = await outline('etag.rb');
    expect(symbol(file, 'ETag')).toMatchObject({ kind: 'class', container: 'Rack', startLine: 17, docStartLine: 8, docEndLine: 16 });
    expect(symbol(file, 'skip_caching?')).toMatchObject({ kind: 'method', startLine: 56, endLine: 58 });
    expect(file.imports).toContainEqual({ source: './constants', names: [], line: 5 });
    expect(calledOn(file, 32)).toContain('digest_body');
  });

  it('C# (Polly): constructors and methods in a file-scoped namespace, using directives', async () => {
    const file = await outline('HedgingResilienceStrategy.cs');
    expect(symbol(file, 'ExecuteCore')).toMatchObject({ kind: 'method', container: 'HedgingResilienceStrategy', startLine: 34, endLine: 84, headerEndLine: 37 });
    expect(file.imports).toContainEqual({ source: 'Polly.Telemetry', names: ['Telemetry'], line: 2 });
    expect(calledOn(file, 40)).toContain('GetContext');
  });

  it('C (log.c): functions through their declarators, typedef structs, includes', async () => {
    const file = await outline('log.c');
    expect(symbol(file, 'log_log')).toMatchObject({ kind: 'function', startLine: 140, endLine: 168 });
    expect(symbol(file, 'log_level_string')).toMatchObject({ startLine: 94 }); // `const char*` return
    expect(symbol(file, 'Callback')).toMatchObject({ kind: 'type', startLine: 27, endLine: 31 });
    expect(file.imports).toContainEqual({ source: 'log.h', names: [], line: 23 });
    expect(calledOn(file, 127)).toContain('log_add_callback');
  });

  it('C++ (leveldb): out-of-class members keep their class, destructors', async () => {
    const file = await outline('arena.cc');
    expect(symbol(file, 'AllocateFallback', 'Arena')).toMatchObject({ kind: 'function', startLine: 20, endLine: 36 });
    expect(symbol(file, '~Arena')).toMatchObject({ startLine: 14 });
    expect(calledOn(file, 24)).toContain('AllocateNewBlock');
    expect(file.imports).toContainEqual({ source: 'util/arena.h', names: [], line: 5 });
  });

  it('PHP (guzzle): methods with docblocks, use clauses with aliases, static and member calls', async () => {
    const file = await outline('Pool.php');
    expect(symbol(file, 'batch')).toMatchObject({ kind: 'method', container: 'Pool', startLine: 96, endLine: 106, docStartLine: 78, docEndLine: 95 });
    expect(file.imports).toContainEqual({ source: 'GuzzleHttp\\Promise', names: ['P'], line: 5 });
    expect(calledOn(file, 54)).toContain('iterFor');
    expect(calledOn(file, 99)).toContain('cmpCallback');
  });

  it('Kotlin (okio): classes and member functions, KDoc', async () => {
    const file = await outline('PeekSource.kt');
    expect(symbol(file, 'PeekSource')).toMatchObject({ kind: 'class', startLine: 28, endLine: 73, docStartLine: 19, docEndLine: 27 });
    expect(symbol(file, 'read')).toMatchObject({ kind: 'method', container: 'PeekSource', startLine: 38, endLine: 64 });
    expect(calledOn(file, 60)).toContain('minOf');
    expect(calledOn(file, 61)).toContain('copyTo');
  });
});

describe('functions assigned to objects are definitions under the property name', () => {
  const source = async (path: string, text: string) => {
    const result = await outlineFile(path, text, RELAXED);
    if (!result.ok) throw new Error(result.reason);
    return result.outline;
  };

  it('JavaScript: req.get, exports.x, module.exports.x, prototypes, chained targets; the function\'s own name is an alias', async () => {
    const file = await source(
      'lib/request.js',
      [
        'var req = Object.create(null)', // 1
        'module.exports = req',
        '',
        '/** Return request header. */',
        'req.get =', // 5
        'req.header = function header(name) {',
        '  return this.headers[name]',
        '}',
        '',
        "res.type = function contentType(type) { return this.set('Content-Type', type) }", // 10
        'exports.normalize = (value) => value.trim()',
        'module.exports.parse = function (text) { return text }',
        'View.prototype.render = function render(options) { return req.get(options) }',
        "Foo.prototype['bar'] = function () {}",
        'methods.forEach(function (method) { app[method] = function (path) { return path } })', // 15
        'module.exports = function createApplication() {}',
        "Object.defineProperty(app, 'router', { get: function getrouter() { return 1 } })",
        '',
      ].join('\n'),
    );
    expect(symbol(file, 'get', 'req')).toMatchObject({ kind: 'function', aliases: ['header'], startLine: 5, endLine: 8, headerEndLine: 6, docStartLine: 4 });
    expect(definitionsNamed(file, 'req.header')).toEqual([symbol(file, 'get')]);
    expect(symbol(file, 'type', 'res')).toMatchObject({ aliases: ['contentType'], startLine: 10 });
    expect(definitionsNamed(file, 'contentType')).toEqual([symbol(file, 'type')]);
    expect(symbol(file, 'normalize', 'exports')).toMatchObject({ startLine: 11 });
    expect(symbol(file, 'parse', 'module.exports')).toMatchObject({ startLine: 12 });
    expect(symbol(file, 'render', 'View')).toMatchObject({ startLine: 13 });
    expect(symbol(file, 'bar', 'Foo')).toMatchObject({ startLine: 14 });
    // A property named when the program runs, the module itself, a property descriptor's accessor: no such names.
    expect(file.symbols.find((item) => item.startLine === 15 && item.headerEndLine === 15 && item.name === '' && item.container === undefined)).toBeDefined();
    expect(definitionsNamed(file, 'app')).toEqual([]);
    expect(definitionsNamed(file, 'exports')).toEqual([]);
    expect(symbol(file, 'createApplication')).toMatchObject({ startLine: 16 });
    expect(symbol(file, 'getrouter')).not.toHaveProperty('aliases');
    expect(definitionsNamed(file, 'get')).toHaveLength(1);
    // Calls keep their object; `this` is the object the function around the call sits on.
    expect(file.references).toContainEqual({ name: 'set', line: 10, kind: 'call', receiver: 'res' });
    expect(file.references).toContainEqual({ name: 'get', line: 13, kind: 'call', receiver: 'req' });
    expect(file.references).toContainEqual({ name: 'forEach', line: 15, kind: 'call', receiver: 'methods' });
  });

  it('TypeScript: an arrow function assigned to an object, and `this` in a class method', async () => {
    const file = await source(
      'src/api.ts',
      [
        'export const api: Api = {} as Api;',
        '',
        '/** Reads one user. */',
        'api.fetchUser = async (id: string): Promise<User> => {',
        '  return this.client.get(`/users/${id}`);',
        '};',
        '',
        'export class Cache {',
        '  read(key: string) {',
        '    return this.lookup(key);',
        '  }',
        '}',
        '',
      ].join('\n'),
    );
    expect(symbol(file, 'fetchUser', 'api')).toMatchObject({ kind: 'function', startLine: 4, endLine: 6, docStartLine: 3 });
    expect(file.references).toContainEqual({ name: 'get', line: 5, kind: 'call', receiver: 'client' });
    expect(file.references).toContainEqual({ name: 'lookup', line: 10, kind: 'call', receiver: 'Cache' });
  });
});

describe('files the reviewer cannot outline fall back instead of failing', () => {
  it('a language without a grammar', async () => {
    expect(languageForPath('notes/readme.md')).toBeUndefined();
    expect(await outlineFile('build.zig', 'const x = 1;')).toEqual({ ok: false, reason: 'no grammar' });
  });

  it('a binary file named .py', async () => {
    const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d]).toString('latin1');
    expect(await outlineFile('image.py', bytes + 'def f(): pass\n')).toEqual({ ok: false, reason: 'binary' });
  });

  it('a 5 MB minified line, and a file over the size limit', async () => {
    const minified = 'var a=' + '1+'.repeat(2_500_000) + '1;';
    expect(await outlineFile('bundle.js', minified)).toEqual({ ok: false, reason: 'too large' });
    expect(await outlineFile('bundle.js', 'var a=' + '1+'.repeat(20_000) + '1;')).toEqual({ ok: false, reason: 'minified' });
  });

  it('a file that does not parse keeps what tree-sitter recovered', async () => {
    const result = await outlineFile('broken.py', 'def ok(a):\n    return a\n\ndef broken(:\n    ]]]\n\ndef later():\n    return ok(1)\n', RELAXED);
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.outline.symbols.map((item) => item.name)).toEqual(expect.arrayContaining(['ok', 'later']));
  });

  it('a file that takes longer than its limit stops at the limit', async () => {
    const large = Array.from({ length: 20_000 }, (_, index) => `def f${index}(a):\n    return g(a, [${index}])\n`).join('');
    const started = performance.now();
    expect(await outlineFile('large.py', large, { ...DEFAULT_OUTLINE_LIMITS, timeoutMs: 5 })).toEqual({ ok: false, reason: 'timed out' });
    // Bounded by the limit plus one progress interval, far below what the whole file takes.
    expect(performance.now() - started).toBeLessThan(2_000);
    // The parser is usable afterwards.
    expect((await outlineFile('small.py', 'def f():\n    pass\n', RELAXED)).ok).toBe(true);
  });
});
