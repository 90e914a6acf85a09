import { posix } from 'node:path';

/**
 * A path inside a repository as a safe relative path, or undefined: no absolute paths, no `..`,
 * no NUL, no backslashes (a Windows separator is a name character on disk here, but a trap in
 * an archive), nothing under `.git/`. Everything the snapshot writes or reads goes through it.
 */
export function safeRepositoryPath(path: string): string | undefined {
  if (path.length === 0 || path.length > 1024 || /[\0\\]/.test(path) || path.startsWith('/')) return undefined;
  const segments = path.split('/').filter((segment) => segment !== '' && segment !== '.');
  if (segments.length === 0 || segments.includes('..') || segments[0] === '.git') return undefined;
  const normalized = posix.normalize(segments.join('/'));
  return normalized.startsWith('..') ? undefined : normalized;
}
