import type { DiffFile, DiffHunk, DiffLine } from './diff/diff-types.js';
import { sliceRange } from './diff/render-for-model.js';

/** Why changed lines were not shown to the model although their file was (or why a whole file was skipped). */
export type LayoutReason = 'line endings only' | 'whitespace only';

export interface LayoutCleaned {
  /** The file with its layout-only changes turned into context; the same object when it had none. */
  file: DiffFile;
  /** Changed lines (removed + added) whose pair differed only in the line ending (`\r`, or the newline at the end of the file). */
  lineEndings: number;
  /** Changed lines whose pair differed only in whitespace (indentation kept where it has meaning). */
  whitespace: number;
}

/** Context lines kept around a change when a hunk is cut again, as `git diff` does. */
const CONTEXT_LINES = 3;

/**
 * Takes out of a file's hunks the changes that only touch layout: a file converted from CRLF to LF
 * shows every line removed and added again (the parser drops the `\r`, so the two texts are equal),
 * and a re-indentation shows lines that differ only in whitespace. Neither is code to review.
 *
 * Within each run of changed lines, the removed and added lines are paired in order when there are
 * as many of each (git prints a changed line's old and new text in the same position of its run).
 * A pair that differs only in layout becomes a context line, carrying its old and new numbers; the
 * other pairs stay changes. Hunks are then cut again to three context lines around what is left, so
 * a 400-line conversion with one real edit sends that edit, not 400 lines of context. Every line
 * keeps the numbers git gave it: what the model reads is numbered as in the new file, and findings
 * anchor to these hunks (all of whose lines are in GitHub's diff too).
 *
 * Whitespace: changes in the amount of whitespace between words, and at the start and end of a line,
 * are layout (as `git diff -b`, plus indentation). In indentation-sensitive files (Python, YAML,
 * Makefiles, …) the leading whitespace is compared exactly: re-indenting changes what the code does.
 */
export function withoutLayoutChanges(file: DiffFile): LayoutCleaned {
  const compare = indentationMatters(file.path) ? sameIgnoringInnerSpace : sameIgnoringSpace;
  let lineEndings = 0;
  let whitespace = 0;
  let changed = false;
  const hunks: DiffHunk[] = [];
  for (const hunk of file.hunks) {
    const lines: DiffLine[] = [];
    let index = 0;
    let hunkChanged = false;
    while (index < hunk.lines.length) {
      const line = hunk.lines[index]!;
      if (line.kind === 'context') {
        lines.push(line);
        index++;
        continue;
      }
      let end = index;
      while (end < hunk.lines.length && hunk.lines[end]!.kind !== 'context') end++;
      const run = hunk.lines.slice(index, end);
      index = end;
      const removed = run.filter((candidate) => candidate.kind === 'del');
      const added = run.filter((candidate) => candidate.kind === 'add');
      const layout = removed.length === added.length ? removed.map((old, at) => layoutKind(old, added[at]!, compare)) : [];
      if (!layout.some((kind) => kind !== null)) {
        lines.push(...run);
        continue;
      }
      hunkChanged = true;
      // Consecutive real pairs stay together, removed lines first, as git prints them.
      let pendingRemoved: DiffLine[] = [];
      let pendingAdded: DiffLine[] = [];
      const flush = () => {
        lines.push(...pendingRemoved, ...pendingAdded);
        pendingRemoved = [];
        pendingAdded = [];
      };
      layout.forEach((kind, at) => {
        const old = removed[at]!;
        const now = added[at]!;
        if (kind === null) {
          pendingRemoved.push(old);
          pendingAdded.push(now);
          return;
        }
        flush();
        if (kind === 'line endings only') lineEndings += 2;
        else whitespace += 2;
        lines.push({ kind: 'context', text: now.text, oldLine: old.oldLine!, newLine: now.newLine!, ...(now.noNewlineAtEnd ? { noNewlineAtEnd: true as const } : {}) });
      });
      flush();
    }
    if (hunkChanged) {
      changed = true;
      hunks.push(...recut({ ...hunk, lines }));
    } else {
      hunks.push(hunk);
    }
  }
  if (!changed) return { file, lineEndings: 0, whitespace: 0 };
  let additions = 0;
  let deletions = 0;
  for (const hunk of hunks) {
    for (const line of hunk.lines) {
      if (line.kind === 'add') additions++;
      else if (line.kind === 'del') deletions++;
    }
  }
  return { file: { ...file, hunks, additions, deletions }, lineEndings, whitespace };
}

function layoutKind(old: DiffLine, now: DiffLine, same: (a: string, b: string) => boolean): LayoutReason | null {
  if (old.text === now.text) return 'line endings only';
  return same(old.text, now.text) ? 'whitespace only' : null;
}

const INNER_SPACE = /\s+/g;

function sameIgnoringSpace(a: string, b: string): boolean {
  return a.trim().replace(INNER_SPACE, ' ') === b.trim().replace(INNER_SPACE, ' ');
}

function sameIgnoringInnerSpace(a: string, b: string): boolean {
  const indent = (text: string) => /^\s*/.exec(text)![0];
  return indent(a) === indent(b) && sameIgnoringSpace(a, b);
}

/**
 * Languages where indentation is syntax (or changes the output): Python, YAML, Makefiles, and the
 * like (CoffeeScript, Haskell, F#, Nim, Elm, Pug/Jade, Haml, Slim, Sass, Stylus, GDScript, Cabal)
 * and Markdown/reStructuredText, whose nesting and code blocks are indentation.
 */
const INDENTATION_EXTENSIONS = new Set([
  'py', 'pyi', 'pyw', 'pyx', 'pxd', 'yml', 'yaml', 'mk', 'mak', 'make', 'coffee', 'hs', 'lhs', 'fs', 'fsi', 'fsx', 'nim',
  'elm', 'pug', 'jade', 'haml', 'slim', 'sass', 'styl', 'gd', 'cabal', 'md', 'markdown', 'rst',
]);
const INDENTATION_NAMES = new Set(['makefile', 'gnumakefile', 'bsdmakefile', 'snakefile', 'sconstruct', 'sconscript', 'pipfile']);

export function indentationMatters(path: string): boolean {
  const name = path.slice(path.lastIndexOf('/') + 1).toLowerCase();
  if (INDENTATION_NAMES.has(name)) return true;
  const dot = name.lastIndexOf('.');
  return dot !== -1 && INDENTATION_EXTENSIONS.has(name.slice(dot + 1));
}

/** A hunk cut into the parts around its changes, each with at most `CONTEXT_LINES` of context either side. */
function recut(hunk: DiffHunk): DiffHunk[] {
  const changes: number[] = [];
  hunk.lines.forEach((line, index) => line.kind !== 'context' && changes.push(index));
  const parts: DiffHunk[] = [];
  let at = 0;
  while (at < changes.length) {
    const from = Math.max(0, changes[at]! - CONTEXT_LINES);
    let last = changes[at]!;
    // Two changes whose contexts touch or overlap share a hunk.
    while (at + 1 < changes.length && changes[at + 1]! - last <= 2 * CONTEXT_LINES + 1) last = changes[++at]!;
    at++;
    const to = Math.min(hunk.lines.length, last + CONTEXT_LINES + 1);
    parts.push({ ...sliceRange(hunk, from, to), heading: hunk.heading, lines: hunk.lines.slice(from, to) });
  }
  return parts;
}
