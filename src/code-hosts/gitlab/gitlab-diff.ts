import { createHash } from 'node:crypto';
import type { GitLabDiffEntry } from './gitlab-schemas.js';

/** The first part of every `line_code` of a file: the SHA-1 of its path (computed once per file, not per line). */
export const lineCodePrefix = (path: string) => createHash('sha1').update(path).digest('hex');

/** GitLab's `line_code` of a diff line: the SHA-1 of the file's path, then its old and new line numbers. */
export const gitlabLineCode = (path: string, oldLine: number, newLine: number) => `${lineCodePrefix(path)}_${oldLine}_${newLine}`;

/**
 * GitLab's diffs APIs give each file's hunks alone (`diff` starts at the first `@@`) with the
 * file's facts beside them (`new_file`, `renamed_file`, `deleted_file`, modes). The review reads
 * `git diff` text, so each file gets back the headers git writes: `diff --git`, the mode lines,
 * `rename from/to`, `---`/`+++` with `/dev/null` for a missing side, and git's binary marker.
 */
export function assembleUnifiedDiff(entries: GitLabDiffEntry[]): string {
  return entries.map(fileSection).join('');
}

/** A mode GitLab reports for a missing side (`0`), or none at all. */
const absent = (mode: string | null | undefined) => mode === undefined || mode === null || mode === '' || /^0+$/.test(mode);

function fileSection(entry: GitLabDiffEntry): string {
  const oldPath = entry.old_path || entry.new_path;
  const newPath = entry.new_path || entry.old_path;
  const oldSide = entry.new_file ? '/dev/null' : quotePath(`a/${oldPath}`);
  const newSide = entry.deleted_file ? '/dev/null' : quotePath(`b/${newPath}`);
  const lines = [`diff --git ${quotePath(`a/${oldPath}`)} ${quotePath(`b/${newPath}`)}`];
  if (entry.new_file) lines.push(`new file mode ${absent(entry.b_mode) ? '100644' : entry.b_mode}`);
  else if (entry.deleted_file) lines.push(`deleted file mode ${absent(entry.a_mode) ? '100644' : entry.a_mode}`);
  else if (!absent(entry.a_mode) && !absent(entry.b_mode) && entry.a_mode !== entry.b_mode) lines.push(`old mode ${entry.a_mode}`, `new mode ${entry.b_mode}`);
  if (entry.renamed_file && oldPath !== newPath) lines.push(`rename from ${quotePath(oldPath)}`, `rename to ${quotePath(newPath)}`);

  const diff = entry.diff ?? '';
  if (/^Binary files /.test(diff)) {
    lines.push(`Binary files ${oldSide} and ${newSide} differ`);
  } else if (diff.length > 0) {
    // With `unidiff=true` (GitLab 16.5+) the text already carries its `---`/`+++` lines.
    if (!diff.startsWith('--- ')) lines.push(`--- ${oldSide}`, `+++ ${newSide}`);
    lines.push(diff.endsWith('\n') ? diff.slice(0, -1) : diff);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Git's quoting of a path in diff headers: a path holding a quote, a backslash, a control
 * character or a non-ASCII byte is written in double quotes with C escapes (octal for bytes).
 */
export function quotePath(path: string): string {
  if (![...path].some((character) => character === '"' || character === '\\' || character < ' ' || character >= '\u007f')) return path;
  const escapes: Record<number, string> = { 0x22: '\\"', 0x5c: '\\\\', 0x07: '\\a', 0x08: '\\b', 0x09: '\\t', 0x0a: '\\n', 0x0b: '\\v', 0x0c: '\\f', 0x0d: '\\r' };
  let quoted = '';
  for (const byte of Buffer.from(path, 'utf8')) {
    quoted += escapes[byte] ?? (byte < 0x20 || byte >= 0x7f ? `\\${byte.toString(8).padStart(3, '0')}` : String.fromCharCode(byte));
  }
  return `"${quoted}"`;
}
