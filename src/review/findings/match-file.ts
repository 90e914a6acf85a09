import type { DiffFile } from '../prepare/diff/diff-types.js';

/** A cited path as written by a model or stored earlier: quotes, `./`, `a/`, `b/`, `/`, backslashes removed. */
export function cleanPath(cited: string): string {
  return cited
    .trim()
    .replace(/^[`'"]+|[`'"]+$/g, '')
    .replace(/\\/g, '/')
    .replace(/^\.\//, '')
    .replace(/^\/+/, '');
}

const withoutSidePrefix = (path: string) => path.replace(/^[ab]\//, '');

/**
 * Finds the diff file a finding cites. In order: the exact path; the path without a leading
 * `a/`/`b/`/`./` (tried second, since a repository may have a real `a/` folder); the old path of a
 * renamed file; a unique suffix (`user.ts` for `src/models/user.ts`, only when one file matches).
 */
export function fileMatcher(files: readonly DiffFile[]): (cited: string) => DiffFile | undefined {
  const byPath = new Map<string, DiffFile>();
  const byOldPath = new Map<string, DiffFile>();
  for (const file of files) {
    byPath.set(file.path, file);
    if (file.oldPath !== null && file.oldPath !== file.path) byOldPath.set(file.oldPath, file);
  }
  return (cited) => {
    const clean = cleanPath(cited);
    if (clean === '') return undefined;
    const stripped = withoutSidePrefix(clean);
    const exact = byPath.get(clean) ?? byPath.get(stripped) ?? byOldPath.get(clean) ?? byOldPath.get(stripped);
    if (exact) return exact;
    const suffix = `/${stripped}`;
    let found: DiffFile | undefined;
    for (const file of files) {
      if (!file.path.endsWith(suffix)) continue;
      if (found) return undefined;
      found = file;
    }
    return found;
  };
}
