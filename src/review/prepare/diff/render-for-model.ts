import type { DiffFile, DiffHunk, DiffLine } from './diff-types.js';

/**
 * The diff as the model reads it. Plain unified diff makes models count lines from the hunk header,
 * and they miscount; here every line that exists in the new file carries its number:
 *
 *     ## src/app.ts (modified)
 *     @@ -10,4 +10,5 @@ export function handler()
 *     10  const user = await load(id);
 *     11 +if (!user) throw new NotFound(id);
 *     -const name = user.name;
 *     12 +const name = user.displayName;
 *     13  return name;
 *
 * `<n> +code` is an added line, `<n>  code` (two spaces) an unchanged context line, `-code` a deleted
 * line: deleted lines have no number because they do not exist in the new file and cannot be
 * commented on. Lines longer than `maxLineChars` are cut with a visible marker.
 *
 * Token counts of this format add up: every piece ends with `\n` and the next one starts with
 * `#`, `@`, a digit or `-`, so the tokenizer never merges across pieces, and the tokens of a chunk
 * are the sum of the tokens of its file headers, hunk headers and lines. Chunking relies on it.
 */
export const DIFF_FORMAT_GUIDE = [
  'The diff is shown file by file. `## <path> (<status>)` starts a file; `(continued)` marks a later part of a file shown in pieces.',
  'A file `(renamed from <old path>)` or `(copied from <old path>)` shows its changes against that file.',
  '`@@ -a,b +c,d @@ <context>` starts a hunk, as in a unified diff.',
  'In a hunk, `<n> +<code>` is a line added at line <n> of the new file, `<n>  <code>` (two spaces) an unchanged line <n> shown for context,',
  'and `-<code>` a deleted line, without a number since it no longer exists in the new file.',
  'A line ending in `… [N more characters]` was shortened for you.',
].join('\n');

export const DEFAULT_MAX_LINE_CHARS = 1000;

export interface RenderOptions {
  /** Longer lines are cut (with a visible marker); keeps data blobs from eating the budget. */
  maxLineChars?: number;
}

export interface HunkRange {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
}

export function renderFileHeader(file: DiffFile, continued = false): string {
  const status =
    file.status === 'renamed' || file.status === 'copied'
      ? `${file.status} from ${file.oldPath ?? '?'}`
      : file.status === 'added'
        ? 'new file'
        : file.status;
  return `## ${file.path} (${status}${continued ? ', continued' : ''})\n`;
}

/** Prints the unified-diff convention back: an empty range starts at the line before it. */
export function renderHunkHeader(range: HunkRange, heading: string): string {
  const oldStart = range.oldLines === 0 ? range.oldStart - 1 : range.oldStart;
  const newStart = range.newLines === 0 ? range.newStart - 1 : range.newStart;
  return `@@ -${oldStart},${range.oldLines} +${newStart},${range.newLines} @@${heading ? ` ${heading}` : ''}\n`;
}

export function renderLine(line: DiffLine, maxLineChars = DEFAULT_MAX_LINE_CHARS): string {
  const text = line.text.length > maxLineChars ? shorten(line.text, maxLineChars) : line.text;
  if (line.kind === 'add') return `${line.newLine} +${text}\n`;
  if (line.kind === 'context') return `${line.newLine}  ${text}\n`;
  return `-${text}\n`;
}

export function renderHunk(hunk: DiffHunk, options: RenderOptions = {}): string {
  return renderHunkSlice(hunk, 0, hunk.lines.length, options);
}

/** Lines `[from, to)` of a hunk under a header recomputed for just those lines. */
export function renderHunkSlice(hunk: DiffHunk, from: number, to: number, options: RenderOptions = {}): string {
  const parts = [renderHunkHeader(sliceRange(hunk, from, to), hunk.heading)];
  for (let index = from; index < to; index++) parts.push(renderLine(hunk.lines[index]!, options.maxLineChars));
  return parts.join('');
}

export function renderFile(file: DiffFile, options: RenderOptions = {}): string {
  return renderFileHeader(file) + file.hunks.map((hunk) => renderHunk(hunk, options)).join('');
}

/** The old and new ranges covered by lines `[from, to)` of a hunk. */
export function sliceRange(hunk: DiffHunk, from: number, to: number): HunkRange {
  if (from === 0 && to === hunk.lines.length) return hunk;
  let oldStart: number | undefined;
  let newStart: number | undefined;
  let oldLines = 0;
  let newLines = 0;
  for (let index = from; index < to; index++) {
    const line = hunk.lines[index]!;
    if (line.oldLine !== undefined) {
      oldStart ??= line.oldLine;
      oldLines++;
    }
    if (line.newLine !== undefined) {
      newStart ??= line.newLine;
      newLines++;
    }
  }
  return {
    oldStart: oldStart ?? nextNumber(hunk, from, 'oldLine', hunk.oldStart),
    oldLines,
    newStart: newStart ?? nextNumber(hunk, from, 'newLine', hunk.newStart),
    newLines,
  };
}

/** Where an empty side of a slice sits: one past the last number before it. */
function nextNumber(hunk: DiffHunk, from: number, side: 'oldLine' | 'newLine', start: number): number {
  for (let index = from - 1; index >= 0; index--) {
    const value = hunk.lines[index]![side];
    if (value !== undefined) return value + 1;
  }
  return start;
}

function shorten(text: string, maxChars: number): string {
  // Never cut a surrogate pair in two.
  const cut = isHighSurrogate(text.charCodeAt(maxChars - 1)) ? maxChars - 1 : maxChars;
  return `${text.slice(0, cut)}… [${text.length - cut} more characters]`;
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
