import type { CodeIndex } from './code-index.js';
import type { ChangedFile, ContextBlock } from './context-block.js';
import { callerBlocks, definitionBlocks, type ChangedOutline } from './definition-blocks.js';
import { enclosingScope } from './find-symbols.js';
import type { CodeSymbol, OutlineSkipReason } from './outline-types.js';
import { fallbackBlocks, scopeBlocks } from './scope-blocks.js';

const UNREADABLE = new Set<OutlineSkipReason>(['binary', 'minified', 'too large']);

/** What a chunk's prompt may hold besides its diff (`.ai-review.yml` `reviews.context`, and the mode). */
export interface ContextWanted {
  definitions: boolean;
  /** Deep mode: call sites of the functions the change alters. */
  callers: boolean;
}

/**
 * The read-only context of one chunk, in the order the budget serves it (decisions.md §11):
 * enclosing scopes, then definitions, then callers. Nothing here is sized to a budget except each
 * block's renderings; the prompt picks what fits.
 */
export async function gatherChunkContext(index: CodeIndex, files: readonly ChangedFile[], wanted: ContextWanted): Promise<ContextBlock[]> {
  const scopes: ContextBlock[] = [];
  const outlined: ChangedOutline[] = [];
  const changedFunctions: Array<{ path: string; symbol: CodeSymbol }> = [];
  for (const file of files) {
    if (file.lines.length === 0) continue;
    const lines = await index.lines(file.path);
    if (lines === null) continue;
    const outline = await index.outline(file.path);
    if (!outline?.ok) {
      // Bytes, minified lines and files over the outline's size (data, generated code) would only fill the prompt.
      if (outline && UNREADABLE.has(outline.reason)) continue;
      if (!lines.slice(0, 200).some((line) => line.includes('\0'))) scopes.push(...fallbackBlocks(file.path, lines, file.lines));
      continue;
    }
    const blocks = scopeBlocks(file.path, lines, outline.outline, file.lines);
    scopes.push(...blocks);
    outlined.push({ path: file.path, outline: outline.outline, changed: file.lines, shown: blocks.map((block) => [block.startLine, block.endLine]) });
    if (wanted.callers) {
      const functions = new Set(file.lines.map((line) => enclosingScope(outline.outline, line, line)).filter((symbol) => symbol?.kind === 'function' || symbol?.kind === 'method'));
      for (const symbol of functions) changedFunctions.push({ path: file.path, symbol: symbol! });
    }
  }
  const definitions = wanted.definitions ? await definitionBlocks(index, outlined) : [];
  const callers = wanted.callers ? await callerBlocks(index, changedFunctions) : [];
  return [...scopes, ...definitions, ...callers];
}
