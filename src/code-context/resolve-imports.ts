import { posix } from 'node:path';
import type { CodeImport, LanguageId } from './outline-types.js';

/** The files of a commit, for finding what an import names. */
export class PathIndex {
  private readonly all: Set<string>;
  private readonly byName = new Map<string, string[]>();
  private readonly folders = new Map<string, string[]>();

  constructor(paths: Iterable<string>) {
    this.all = new Set(paths);
    for (const path of this.all) {
      const name = posix.basename(path);
      this.byName.set(name, [...(this.byName.get(name) ?? []), path]);
      const folder = posix.dirname(path);
      this.folders.set(folder, [...(this.folders.get(folder) ?? []), path]);
    }
  }

  has(path: string): boolean {
    return this.all.has(path);
  }

  /** Files whose path is `suffix` or ends with `/suffix`. */
  endingWith(suffix: string): string[] {
    return (this.byName.get(posix.basename(suffix)) ?? []).filter((path) => path === suffix || path.endsWith(`/${suffix}`));
  }

  /** The files directly in a folder. */
  inFolder(folder: string): string[] {
    return this.folders.get(folder) ?? [];
  }

  /** Folders whose path is `suffix` or ends with `/suffix`. */
  foldersEndingWith(suffix: string): string[] {
    return [...this.folders.keys()].filter((folder) => folder === suffix || folder.endsWith(`/${suffix}`));
  }
}

const JS_EXTENSIONS = ['.ts', '.tsx', '.d.ts', '.js', '.jsx', '.mjs', '.cjs', '.mts', '.cts'];
/** A module found by a suffix match is trusted only when the match is unambiguous enough. */
const MAX_SUFFIX_MATCHES = 3;

/**
 * The repository files an import refers to (empty for a package from outside the repository):
 * relative imports (JavaScript, TypeScript, Python, Ruby, C), Python packages, Go packages,
 * Java/Kotlin/PHP names by their path, Rust `crate::` modules.
 */
export function resolveImport(fromPath: string, imported: CodeImport, language: LanguageId, index: PathIndex): string[] {
  const folder = posix.dirname(fromPath);
  const source = imported.source;
  const first = (candidates: string[]) => {
    const found = candidates.find((candidate) => index.has(candidate));
    return found === undefined ? [] : [found];
  };
  const bySuffix = (suffixes: string[]) => {
    for (const suffix of suffixes) {
      const found = index.endingWith(suffix);
      if (found.length > 0) return found.length <= MAX_SUFFIX_MATCHES ? found : [];
    }
    return [];
  };
  switch (language) {
    case 'javascript':
    case 'typescript':
    case 'tsx': {
      if (!source.startsWith('.')) return [];
      const base = posix.join(folder, source);
      // NodeNext sources import `./x.js` for `./x.ts`.
      const stem = base.replace(/\.(m|c)?js$/, '');
      return first([base, ...JS_EXTENSIONS.map((extension) => stem + extension), ...JS_EXTENSIONS.map((extension) => `${base}/index${extension}`)]);
    }
    case 'python': {
      const dots = /^\.*/.exec(source)![0].length;
      const modulePath = source.slice(dots).split('.').filter(Boolean).join('/');
      if (dots > 0) {
        const base = posix.join(folder, ...Array<string>(dots - 1).fill('..'), modulePath);
        // `from . import x`: each name may be a module of the package.
        const names = modulePath === '' ? imported.names.map((name) => posix.join(base, name)) : [base];
        return names.flatMap((name) => first([`${name}.py`, `${name}/__init__.py`]));
      }
      return bySuffix([`${modulePath}.py`, `${modulePath}/__init__.py`]);
    }
    case 'go': {
      // The longest tail of the import path that is a folder of the repository is the package.
      const segments = source.split('/');
      for (let start = 0; start < segments.length; start++) {
        const folders = index.foldersEndingWith(segments.slice(start).join('/'));
        if (folders.length === 1) return index.inFolder(folders[0]!).filter((path) => path.endsWith('.go') && !path.endsWith('_test.go'));
        if (folders.length > 1) return [];
      }
      return [];
    }
    case 'java':
    case 'kotlin': {
      const path = source.replace(/\.\*$/, '').split('.').join('/');
      return bySuffix([`${path}.java`, `${path}.kt`]);
    }
    case 'php':
      return bySuffix(phpSuffixes(source));
    case 'ruby':
      return source.startsWith('./') ? first([`${posix.join(folder, source)}.rb`, posix.join(folder, source)]) : bySuffix([`lib/${source}.rb`, `${source}.rb`]);
    case 'c':
    case 'cpp':
      return index.has(posix.join(folder, source)) ? [posix.join(folder, source)] : bySuffix([source]);
    case 'rust':
      return rustModule(fromPath, source, index);
    case 'csharp':
      // Namespaces do not name files: the symbol index finds C# definitions.
      return [];
  }
}

/** `A\B\C` lives in `…/B/C.php` under PSR-4: the longest tail of the name first. */
function phpSuffixes(name: string): string[] {
  const segments = name.split('\\').filter(Boolean);
  return segments.map((_, start) => `${segments.slice(start).join('/')}.php`);
}

/** `crate::a::b::C` → `src/a/b.rs`, `src/a/b/mod.rs`, then `src/a.rs`…; `super::x` from the file's folder. */
function rustModule(fromPath: string, source: string, index: PathIndex): string[] {
  const segments = source.replace(/::\{.*$/, '').split('::');
  const root = segments[0];
  let base: string;
  if (root === 'crate') base = fromPath.includes('src/') ? fromPath.slice(0, fromPath.lastIndexOf('src/') + 3) : posix.dirname(fromPath);
  else if (root === 'super') base = posix.dirname(posix.dirname(fromPath));
  else if (root === 'self') base = posix.dirname(fromPath);
  else return [];
  const modules = segments.slice(1);
  for (let length = modules.length; length > 0; length--) {
    const path = posix.join(base, ...modules.slice(0, length));
    if (index.has(`${path}.rs`)) return [`${path}.rs`];
    if (index.has(`${path}/mod.rs`)) return [`${path}/mod.rs`];
  }
  return [];
}
