import type { ContextBlock } from './context-block.js';

/**
 * Below this many tokens of room a chunk gets no context and nothing is read for it: the section's
 * heading (about 45 tokens) and one small block take about this much.
 */
export const MIN_CONTEXT_ROOM = 150;
/** The section's heading, as `fitContext` writes it (about 45 tokens; kept out of the blocks' room). */
const HEADING_TOKENS = 50;
/**
 * o200k averages 3.5 to 4.5 characters a token on code: at 4 an estimate is near the count, so
 * gathering stops about where the fit would fill the room, and a token count of every rendering
 * (the fit's work) is not paid twice.
 */
const CHARS_PER_TOKEN = 4;
/** `<context kind=… path=… lines=… about=… read-only>` and its end tag, besides the path and label. */
const FRAME_CHARS = 60;

/**
 * What the blocks gathered so far leave of a prompt's room, estimated cheaply: each block at its
 * most elided rendering (the least the fit would give it), by length. A block that could not fit
 * the whole room even so is dropped by the fit, and takes nothing here either.
 */
export class RoomLeft {
  private used = 0;

  constructor(private readonly room: number) {}

  /** Too little room for any block: nothing is worth reading. */
  tooSmall(): boolean {
    return this.room < MIN_CONTEXT_ROOM;
  }

  /** The blocks so far take the room: later ones would not reach the prompt. */
  full(): boolean {
    return this.used >= this.room - HEADING_TOKENS;
  }

  /** Counts the blocks in (returned as given). */
  take<T extends ContextBlock>(blocks: T[]): T[] {
    for (const block of blocks) {
      const tokens = estimatedTokens(block);
      if (tokens <= this.room - HEADING_TOKENS) this.used += tokens;
    }
    return blocks;
  }
}

function estimatedTokens(block: ContextBlock): number {
  const cheapest = block.variants.reduce((least, variant) => Math.min(least, variant.length), Number.POSITIVE_INFINITY);
  return Math.ceil((cheapest + block.path.length + block.label.length + FRAME_CHARS) / CHARS_PER_TOKEN);
}
