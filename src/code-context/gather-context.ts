import type { CodeIndex } from './code-index.js';
import type { ChangedFile, ContextBlock } from './context-block.js';
import { ContextRoom } from './context-room.js';
import { callerBlocks, DefinitionFinder } from './definition-blocks.js';
import { enclosingScope } from './find-symbols.js';
import type { CodeSymbol, OutlineSkipReason } from './outline-types.js';
import { fallbackBlocks, scopeBlocks } from './scope-blocks.js';

const UNREADABLE = new Set<OutlineSkipReason>(['binary', 'minified', 'too large']);

/** What a chunk's prompt may hold besides its diff (`.ai-review.yml` `reviews.context`, and the mode). */
export interface ContextWanted {
  definitions: boolean;
  /** Deep mode: call sites of the functions the change alters (found through the symbol index). */
  callers: boolean;
  /**
   * Definitions may be looked up by name in the repository's symbol index (default true). Not for a
   * large pull request (decisions.md §11): building the index parses the whole repository.
   */
  symbolIndex?: boolean;
}

/**
 * The read-only context of one chunk, in the order the budget serves it (decisions.md §11):
 * enclosing scopes, then definitions, then callers. Nothing here is sized to a budget except each
 * block's renderings; the prompt picks what fits. `room` (the tokens the prompt leaves for context;
 * omitted, no bound) only saves work that could not reach the prompt: nothing is read below
 * MIN_CONTEXT_ROOM, and the chunk's files are outlined (their definitions looked up, the symbol
 * index built for them) only while the fit of the blocks so far, estimated by length, leaves room
 * and the scopes gathered do not yet fill the scopes' share (`ContextRoom.scopesTaken`).
 * With ample room the blocks are the same as without a bound.
 */
export async function gatherChunkContext(index: CodeIndex, files: readonly ChangedFile[], wanted: ContextWanted, room = Number.POSITIVE_INFINITY): Promise<ContextBlock[]> {
  const left = new ContextRoom(room);
  if (left.tooSmall()) return [];
  const scopes: ContextBlock[] = [];
  const definitions = new DefinitionFinder(index, left, { symbolIndex: wanted.symbolIndex ?? true });
  const changedFunctions: Array<{ path: string; symbol: CodeSymbol }> = [];
  for (const file of files) {
    if (file.lines.length === 0) continue;
    // Outlining files whose blocks cannot be shown was most of a large pull request's cost: its
    // chunks are full of diff, and the first files' blocks take the little room left (the scopes of
    // all 10 files of such a chunk, gathered, shared the part so thinly that none was shown).
    if (left.full() || left.scopesTaken()) break;
    const { outline, lines } = await index.outlineAndLines(file.path);
    if (lines === null) continue;
    if (!outline?.ok) {
      // Bytes, minified lines and files over the outline's size (data, generated code) would only fill the prompt.
      if (outline && UNREADABLE.has(outline.reason)) continue;
      if (!lines.slice(0, 200).some((line) => line.includes('\0'))) scopes.push(...left.add(fallbackBlocks(file.path, lines, file.lines)));
      continue;
    }
    const blocks = left.add(scopeBlocks(file.path, lines, outline.outline, file.lines));
    scopes.push(...blocks);
    if (wanted.definitions) await definitions.add({ path: file.path, outline: outline.outline, changed: file.lines, shown: blocks.map((block) => [block.startLine, block.endLine]) });
    if (wanted.callers) {
      const functions = new Set(file.lines.map((line) => enclosingScope(outline.outline, line, line)).filter((symbol) => symbol?.kind === 'function' || symbol?.kind === 'method'));
      for (const symbol of functions) changedFunctions.push({ path: file.path, symbol: symbol! });
    }
  }
  const callers = wanted.callers && !left.full() ? await callerBlocks(index, changedFunctions, left) : [];
  return [...scopes, ...definitions.blocks, ...callers];
}
