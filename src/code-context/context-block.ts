/** What a block of read-only context shows (decisions.md §11), in the order the budget serves them. */
export type ContextBlockKind = 'scope' | 'definition' | 'caller';

/** Enclosing scopes together take at most this share of the room while definitions or callers wait behind them. */
export const SCOPES_SHARE = 0.6;

/**
 * A piece of the repository shown beside a chunk's diff: its path, lines and why it is there, with
 * renderings from the fullest to the most elided. The prompt takes the first that fits its share of
 * the budget, or drops the block whole.
 */
export interface ContextBlock {
  kind: ContextBlockKind;
  path: string;
  startLine: number;
  endLine: number;
  /** Why it is shown: "enclosing function loadUser", "definition of db.query". */
  label: string;
  variants: string[];
}

/** A changed file of a chunk: the new-file lines it adds, and the line after each deletion. */
export interface ChangedFile {
  path: string;
  /** Sorted, distinct. */
  lines: number[];
}

/**
 * Lines of a file, numbered as in the diff, keeping only `kept` (sorted 1-based numbers) and marking
 * each run of left-out lines: `… lines 12-40 not shown …`.
 */
export function renderLines(lines: readonly string[], kept: readonly number[]): string {
  const out: string[] = [];
  let previous = 0;
  for (const line of kept) {
    if (line < 1 || line > lines.length || line <= previous) continue;
    if (previous > 0 && line > previous + 1) out.push(elision(previous + 1, line - 1));
    out.push(`${line} ${shorten(lines[line - 1]!)}`);
    previous = line;
  }
  return out.length > 0 ? `${out.join('\n')}\n` : '';
}

/** A line longer than this (data, a generated table) is cut: the model needs its start, not all of it. */
const MAX_LINE_CHARS = 500;

function shorten(line: string): string {
  return line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}… [${line.length - MAX_LINE_CHARS} more characters]` : line;
}

function elision(from: number, to: number): string {
  return from === to ? `… line ${from} not shown …` : `… lines ${from}-${to} not shown …`;
}

/** Lines `from`–`to` (clamped to the file), as numbers. */
export function lineRange(from: number, to: number, lineCount: number): number[] {
  const start = Math.max(1, from);
  const end = Math.min(lineCount, to);
  return end < start ? [] : Array.from({ length: end - start + 1 }, (_, index) => start + index);
}

/** The distinct renderings, fullest first (an elision that keeps every line is the full text again). */
export function distinctVariants(variants: ReadonlyArray<string | undefined>): string[] {
  // Compared, not hashed: renderings of one scope mostly differ in length, which a comparison sees at once.
  return variants.filter((variant, at): variant is string => variant !== undefined && variant !== '' && variants.indexOf(variant) === at);
}
