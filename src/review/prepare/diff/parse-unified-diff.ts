import { parsePatch, type StructuredPatch } from 'diff';
import type { DiffStats } from '../../../domain/review-content.js';
import type { DiffFile, DiffHunk, DiffLine } from './diff-types.js';

const GIT_HEADER = 'diff --git ';
const DEV_NULL = '/dev/null';

/**
 * Parses a unified diff (GitHub's `application/vnd.github.diff`, i.e. `git diff` output; a plain
 * `diff -u` patch works too) into files whose lines carry explicit old and new line numbers.
 *
 * jsdiff's `parsePatch` does the line-level work (quoted paths, renames, modes, `\ No newline`,
 * hunk counts), but it throws on the first malformed hunk and would lose every file of the pull
 * request. So the text is cut at each `diff --git` header (a content line always starts with a
 * marker, so such a line is always a header) and each file is parsed alone: a malformed file comes
 * back with `parseError` and no hunks, and the skip rules report it instead of the review failing.
 *
 * CRLF line endings (a diff saved on Windows, or a file with CRLF content) are dropped: the model
 * reviews text, and a trailing `\r` on every line would cost tokens and confuse line matching.
 */
export function parseUnifiedDiff(diffText: string): DiffFile[] {
  return [...diffFiles(diffText)];
}

/** What a pull request's header counts: lines added and removed, files changed. */
export function diffStats(diffText: string): DiffStats {
  const stats: DiffStats = { additions: 0, deletions: 0, changedFiles: 0 };
  for (const file of diffFiles(diffText)) {
    stats.additions += file.additions;
    stats.deletions += file.deletions;
    stats.changedFiles++;
  }
  return stats;
}

/** `parseUnifiedDiff`'s files one at a time, as each `diff --git` section is parsed. */
export function* diffFiles(diffText: string): Generator<DiffFile, void, void> {
  if (diffText.trim().length === 0) return;
  const text = diffText.includes('\r') ? diffText.replace(/\r\n/g, '\n') : diffText;
  for (const section of fileSections(text)) yield* parseSection(section);
}

/** The text of each `diff --git` section; the whole text when there is none (a plain unified diff). */
function* fileSections(text: string): Generator<string> {
  let start = text.startsWith(GIT_HEADER) ? 0 : text.indexOf(`\n${GIT_HEADER}`);
  if (start === -1) {
    yield text;
    return;
  }
  // Anything before the first header (a `format-patch` mail, a commit message) is not a file.
  if (start > 0) start += 1;
  while (start < text.length) {
    const next = text.indexOf(`\n${GIT_HEADER}`, start);
    const end = next === -1 ? text.length : next + 1;
    yield text.slice(start, end);
    start = end;
  }
}

function parseSection(section: string): DiffFile[] {
  let patches: StructuredPatch[];
  try {
    patches = parsePatch(section);
  } catch (error) {
    return [unparsedFile(section, error instanceof Error ? error.message : String(error))];
  }
  const headings = hunkHeadings(section);
  let hunkIndex = 0;
  const files: DiffFile[] = [];
  for (const patch of patches) {
    const file = toDiffFile(patch, section, () => headings[hunkIndex++] ?? '');
    if (file) files.push(file);
  }
  // A `diff --git` section is one file; a plain patch's files share one section and go unmeasured.
  if (files.length === 1) files[0]!.diffBytes = Buffer.byteLength(section);
  return files;
}

function toDiffFile(patch: StructuredPatch, section: string, nextHeading: () => string): DiffFile | null {
  if (patch.oldFileName === undefined && patch.newFileName === undefined && patch.hunks.length === 0) return null;
  const prefixed = patch.isGit === true || (patch.oldFileName?.startsWith('a/') === true && patch.newFileName?.startsWith('b/') === true);
  const oldName = withoutPrefix(patch.oldFileName, prefixed ? 'a/' : '');
  const newName = withoutPrefix(patch.newFileName, prefixed ? 'b/' : '');
  const copied = patch.isCopy === true && oldName !== undefined && oldName !== DEV_NULL;
  const added = !copied && (patch.isCreate === true || oldName === DEV_NULL || patch.isCopy === true);
  const deleted = !added && !copied && (patch.isDelete === true || newName === DEV_NULL);
  const path = (deleted ? oldName : newName) ?? oldName ?? '';
  const oldPath = deleted ? path : copied ? oldName : added ? null : (oldName ?? path);
  // A copy's hunks are against its source, as a rename's are: the model is told where it came from.
  const status = copied
    ? 'copied'
    : added
      ? 'added'
      : deleted
        ? 'deleted'
        : patch.isRename === true || (oldPath !== null && oldPath !== path)
          ? 'renamed'
          : 'modified';

  let additions = 0;
  let deletions = 0;
  const hunks: DiffHunk[] = [];
  for (const hunk of patch.hunks) {
    const lines: DiffLine[] = [];
    let oldLine = hunk.oldStart;
    let newLine = hunk.newStart;
    for (const raw of hunk.lines) {
      const marker = raw.charCodeAt(0);
      if (marker === PLUS) {
        lines.push({ kind: 'add', text: raw.slice(1), newLine: newLine++ });
        additions++;
      } else if (marker === MINUS) {
        lines.push({ kind: 'del', text: raw.slice(1), oldLine: oldLine++ });
        deletions++;
      } else if (marker === BACKSLASH) {
        const previous = lines.at(-1);
        if (previous) previous.noNewlineAtEnd = true;
      } else {
        // A space, or an empty line that a tool stripped of its trailing space (jsdiff reads it as context).
        lines.push({ kind: 'context', text: raw.slice(1), oldLine: oldLine++, newLine: newLine++ });
      }
    }
    hunks.push({ oldStart: hunk.oldStart, oldLines: hunk.oldLines, newStart: hunk.newStart, newLines: hunk.newLines, heading: nextHeading(), lines });
  }
  // jsdiff only marks `Binary files … differ`; `git diff --binary` writes a `GIT binary patch` instead.
  const binary = patch.isBinary === true || (hunks.length === 0 && section.includes('\nGIT binary patch'));
  return { path, oldPath, status, binary, hunks, additions, deletions };
}

const PLUS = 43;
const MINUS = 45;
const BACKSLASH = 92;

function withoutPrefix(name: string | undefined, prefix: string): string | undefined {
  if (name === undefined || name === DEV_NULL) return name;
  return prefix !== '' && name.startsWith(prefix) ? name.slice(prefix.length) : name;
}

/** The text after the second `@@` of every hunk header, in order (jsdiff drops it). */
function hunkHeadings(section: string): string[] {
  const headings: string[] = [];
  let at = section.startsWith('@@') ? 0 : section.indexOf('\n@@');
  while (at !== -1) {
    const start = section.charCodeAt(at) === NEWLINE ? at + 1 : at;
    const end = section.indexOf('\n', start);
    const line = section.slice(start, end === -1 ? section.length : end);
    const close = line.indexOf('@@', 2);
    headings.push(close === -1 ? '' : line.slice(close + 2).trim());
    at = end === -1 ? -1 : section.indexOf('\n@@', end);
  }
  return headings;
}

const NEWLINE = 10;

/** A section jsdiff rejected: kept (with its changed lines counted) so the gap is reported, not hidden. */
function unparsedFile(section: string, reason: string): DiffFile {
  const header = section.slice(0, Math.max(0, section.indexOf('\n')));
  const renamedTo = /^rename to (.+)$/m.exec(section)?.[1];
  const newName = /^\+\+\+ (?:b\/)?(.+)$/m.exec(section)?.[1];
  const path = renamedTo ?? (newName !== undefined && newName !== DEV_NULL ? newName.split('\t')[0]! : gitHeaderPath(header));
  let additions = 0;
  let deletions = 0;
  let inHunks = false;
  for (const line of section.split('\n')) {
    if (line.startsWith('@@')) inHunks = true;
    else if (inHunks && line.startsWith('+')) additions++;
    else if (inHunks && line.startsWith('-')) deletions++;
  }
  return { path, oldPath: path, status: 'modified', binary: false, hunks: [], additions, deletions, parseError: reason };
}

/** `diff --git a/x b/x`: the new path, splitting at the middle ` b/` when the path itself holds one. */
function gitHeaderPath(header: string): string {
  const rest = header.slice(GIT_HEADER.length);
  const splits: number[] = [];
  for (let at = rest.indexOf(' b/'); at !== -1; at = rest.indexOf(' b/', at + 1)) splits.push(at);
  const middle = splits[Math.floor(splits.length / 2)];
  return middle === undefined ? rest : rest.slice(middle + 3);
}
