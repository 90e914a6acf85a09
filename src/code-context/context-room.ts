import { SCOPES_SHARE, type ContextBlock, type ContextBlockKind } from './context-block.js';

/**
 * Below this many tokens of room a chunk gets no context and nothing is read for it: the section's
 * heading (about 45 tokens) and one small block take about this much.
 */
export const MIN_CONTEXT_ROOM = 150;
/** The section's heading, as `fitContext` writes it (about 45 tokens). */
const HEADING_TOKENS = 50;
/** Room the fit would leave that no block is this small for: a frame and a couple of lines. */
const LEAST_BLOCK_TOKENS = 40;
/**
 * o200k averages 3.5 to 4.5 characters a token on code: at 4 an estimate is near the count, so the
 * gathering stops about where the fit fills the room, without the fit's token counts.
 */
const CHARS_PER_TOKEN = 4;
/**
 * `<context kind=… path=… lines=… about=… read-only>` and its end tag: punctuation, about 25 tokens
 * besides the path and label, which count about 3 characters a token.
 */
const FRAME_TOKENS = 25;
const FRAME_CHARS_PER_TOKEN = 3;

/** A gathered block's renderings, fullest first, as estimated tokens. */
type Estimate = number[];

/**
 * What the blocks gathered so far leave of a prompt's room: `fitContext`'s rule (scopes' share
 * filled like water, each block's fullest rendering that fits its cap, a block that fits none
 * dropped) run on lengths instead of token counts. It only tells the gathering when to stop; the
 * prompt is still fitted with exact counts.
 */
export class ContextRoom {
  private readonly gathered: Record<ContextBlockKind, Estimate[]> = { scope: [], definition: [], caller: [] };
  private fullAt: number | undefined;

  constructor(private readonly room: number) {}

  /** Too little room for any block: nothing is worth reading. */
  tooSmall(): boolean {
    return this.room < MIN_CONTEXT_ROOM;
  }

  /** Counts the blocks in (returned as given). */
  add<T extends ContextBlock>(blocks: T[]): T[] {
    for (const block of blocks) {
      const frame = FRAME_TOKENS + Math.ceil((block.path.length + block.label.length) / FRAME_CHARS_PER_TOKEN);
      this.gathered[block.kind].push(block.variants.map((variant) => frame + Math.ceil(variant.length / CHARS_PER_TOKEN)));
    }
    if (blocks.length > 0) this.fullAt = undefined;
    return blocks;
  }

  /**
   * The scopes gathered so far, each at its smallest rendering (those that could fit alone), take
   * the scopes' share of the room: the fit shares that part among all scopes, so another file's
   * scope could only push one out (a chunk of 30 files each in a long function showed none).
   */
  scopesTaken(): boolean {
    if (this.room === Number.POSITIVE_INFINITY) return false;
    const share = Math.floor((this.room - HEADING_TOKENS) * SCOPES_SHARE);
    const smallest = this.gathered.scope.map((variants) => Math.min(...variants)).filter((tokens) => tokens <= share);
    return smallest.reduce((sum, tokens) => sum + tokens, 0) >= share;
  }

  /** The fit of the blocks so far would leave no room for another one. */
  full(): boolean {
    if (this.room === Number.POSITIVE_INFINITY) return false;
    this.fullAt ??= this.leftAfterFit();
    return this.fullAt < LEAST_BLOCK_TOKENS;
  }

  private leftAfterFit(): number {
    let left = this.room - HEADING_TOKENS;
    const { scope, definition, caller } = this.gathered;
    const others = definition.length + caller.length > 0;
    const caps = scopeCaps(scope, others ? Math.floor(left * SCOPES_SHARE) : left);
    [...scope, ...definition, ...caller].forEach((variants, position) => {
      const cap = Math.min(left, caps[position] ?? left);
      const fitting = variants.find((tokens) => tokens <= cap);
      if (fitting !== undefined) left -= fitting;
    });
    return left;
  }
}

/** `fitContext`'s shares of the scopes' part: the smallest scopes take what they need, the larger ones the rest. */
function scopeCaps(scopes: readonly Estimate[], total: number): number[] {
  const caps: number[] = [];
  let remaining = total;
  const byNeed = scopes.map((variants, position) => ({ position, need: variants[0] ?? 0 })).sort((a, b) => a.need - b.need);
  byNeed.forEach((scope, index) => {
    const cap = Math.max(0, Math.min(scope.need, Math.floor(remaining / (byNeed.length - index))));
    caps[scope.position] = cap;
    remaining -= cap;
  });
  return caps;
}
