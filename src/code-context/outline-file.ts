import { extractOutline, OutlineDeadlineError } from './extract-outline.js';
import { grammarFor } from './grammars.js';
import { languageForPath } from './language-specs.js';
import type { OutlineResult } from './outline-types.js';

export interface OutlineLimits {
  /** A larger file is not parsed (generated code, data): its context falls back to lines. */
  maxBytes: number;
  /** A line this long means minified or generated code: nothing a scope would help with. */
  maxLineLength: number;
  /** Parse and walk together; a pathological file stops here instead of stalling the worker. */
  timeoutMs: number;
}

export const DEFAULT_OUTLINE_LIMITS: OutlineLimits = { maxBytes: 1024 * 1024, maxLineLength: 10_000, timeoutMs: 2_000 };

/**
 * The outline (symbols, imports, references) of one file, or why it has none. Never throws for what
 * the file holds: a file that does not parse still yields the outline of what tree-sitter recovered
 * (its error nodes are skipped), and one over a limit yields a reason, so the review goes on.
 */
export async function outlineFile(path: string, text: string, limits: OutlineLimits = DEFAULT_OUTLINE_LIMITS): Promise<OutlineResult> {
  const language = languageForPath(path);
  if (!language) return { ok: false, reason: 'no grammar' };
  if (text.length > limits.maxBytes) return { ok: false, reason: 'too large' };
  if (text.slice(0, 8192).includes('\0')) return { ok: false, reason: 'binary' };
  if (hasLineLongerThan(text, limits.maxLineLength)) return { ok: false, reason: 'minified' };
  const grammar = await grammarFor(language);
  const { parser } = grammar;
  const deadline = performance.now() + limits.timeoutMs;
  // Returning true from the progress callback cancels the parse (`parse` then returns null).
  const tree = parser.parse(text, null, { progressCallback: () => performance.now() > deadline });
  if (!tree) {
    parser.reset();
    return { ok: false, reason: 'timed out' };
  }
  try {
    return { ok: true, outline: extractOutline(tree, grammar, language, splitLines(text), deadline) };
  } catch (error) {
    if (error instanceof OutlineDeadlineError) return { ok: false, reason: 'timed out' };
    throw error;
  } finally {
    tree.delete();
  }
}

function hasLineLongerThan(text: string, limit: number): boolean {
  let start = 0;
  while (start < text.length) {
    const end = text.indexOf('\n', start);
    const stop = end === -1 ? text.length : end;
    if (stop - start > limit) return true;
    start = stop + 1;
  }
  return false;
}

/** The file's lines, without the empty one after a final newline. */
export function splitLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}
