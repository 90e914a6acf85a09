import { distinctVariants, lineRange, renderLines, type ContextBlock } from './context-block.js';
import { enclosingSymbols } from './find-symbols.js';
import type { CodeSymbol, FileOutline } from './outline-types.js';

/** Scope renderings keep this many lines around each changed line, widest first; 0: the changed lines alone. */
const ELISION_WINDOWS = [12, 4, 0];
/** A scope longer than this is never offered whole (a 3,000-line class): only elided. */
const MAX_WHOLE_SCOPE_LINES = 400;
/** Files without a grammar: the diff's own context widened by whole lines, widest first. */
const FALLBACK_WINDOWS = [40, 20, 8];
/** A named scope this long gives way to a nameless function inside it. */
const LONG_NAMED_SCOPE_LINES = 150;
/** A nested block's header is kept in an elided scope when it is this short (a signature, not a body). */
const MAX_NESTED_HEADER_LINES = 4;

/**
 * Each changed line's innermost named function, method or class, widened to the whole of it
 * (one block per scope, however many hunks it holds). A scope too large for its share is shown with
 * its header, the lines around the changes and the headers of the blocks in between; the rest is
 * marked as not shown. Lines outside any scope (imports, module code) get no block: the diff shows them.
 */
export function scopeBlocks(path: string, lines: readonly string[], outline: FileOutline, changed: readonly number[]): ContextBlock[] {
  const byScope = new Map<CodeSymbol, number[]>();
  for (const line of changed) {
    const scope = scopeOf(outline, line);
    if (!scope) continue;
    const list = byScope.get(scope);
    if (list) list.push(line);
    else byScope.set(scope, [line]);
  }
  const blocks: ContextBlock[] = [];
  for (const [scope, inside] of byScope) {
    const start = Math.min(scope.startLine, scope.docStartLine ?? scope.startLine);
    const header = lineRange(start, scope.headerEndLine, lines.length);
    const nested = outline.symbols
      .filter((symbol) => symbol !== scope && symbol.startLine > scope.headerEndLine && symbol.endLine <= scope.endLine && symbol.headerEndLine - symbol.startLine < MAX_NESTED_HEADER_LINES)
      .flatMap((symbol) => lineRange(symbol.startLine, symbol.headerEndLine, lines.length));
    const elided = ELISION_WINDOWS.map((window) => {
      const around = inside.flatMap((line) => lineRange(line - window, line + window, scope.endLine));
      const kept = [...header, ...nested, ...around.filter((line) => line >= start), scope.endLine];
      return renderLines(lines, sortedDistinct(kept));
    });
    const whole = scope.endLine - start < MAX_WHOLE_SCOPE_LINES ? renderLines(lines, lineRange(start, scope.endLine, lines.length)) : undefined;
    const kind = scope.kind === 'type' ? 'type' : scope.kind;
    blocks.push({
      kind: 'scope',
      path,
      startLine: start,
      endLine: scope.endLine,
      label: scope.name ? `enclosing ${kind} ${scope.container ? `${scope.container}.` : ''}${scope.name}` : `enclosing ${kind} (anonymous)`,
      variants: distinctVariants([whole, ...elided]),
    });
  }
  return blocks;
}

/**
 * The innermost named function, method or class around the line; when that is long (a test file's
 * `describe`, a module wrapper) or there is none, the innermost function at all, callbacks included
 * (`it('…', function () {…})`), which a reader would take as the scope.
 */
function scopeOf(outline: FileOutline, line: number): CodeSymbol | undefined {
  const around = enclosingSymbols(outline, line, line);
  const named = around.find((symbol) => symbol.name !== '');
  const innermost = around[0];
  if (named && (named === innermost || named.endLine - named.startLine < LONG_NAMED_SCOPE_LINES)) return named;
  return innermost ?? named;
}

/**
 * For a file the reviewer cannot outline (no grammar, binary, minified, timed out): the lines
 * around each run of changes, widened by whole lines, the runs close together merged.
 */
export function fallbackBlocks(path: string, lines: readonly string[], changed: readonly number[]): ContextBlock[] {
  if (changed.length === 0 || lines.length === 0) return [];
  const widest = FALLBACK_WINDOWS[0]!;
  const runs: Array<[number, number]> = [];
  for (const line of changed) {
    const last = runs.at(-1);
    if (last && line - last[1] <= 2 * widest) last[1] = line;
    else runs.push([line, line]);
  }
  return runs.map(([first, last]) => {
    const variants = FALLBACK_WINDOWS.map((window) => renderLines(lines, lineRange(first - window, last + window, lines.length)));
    return {
      kind: 'scope' as const,
      path,
      startLine: Math.max(1, first - widest),
      endLine: Math.min(lines.length, last + widest),
      label: 'lines around the change',
      variants: distinctVariants(variants),
    };
  });
}

export function sortedDistinct(numbers: readonly number[]): number[] {
  return [...new Set(numbers)].sort((a, b) => a - b);
}
