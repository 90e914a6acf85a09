import type { ReviewMode } from '../../db/schema/reviews.js';
import type { ContextLevel } from '../../repository-config/repository-config-schema.js';
import type { DiffFile } from './diff/diff-types.js';
import { MIN_TOKEN_BUDGET } from './chunking.js';

/**
 * Share of the model's context kept free for the code around each chunk when the diff is split:
 * more means more context per chunk, and more chunks (more calls) for a large pull request. A chunk
 * smaller than its budget leaves the rest to the context too.
 */
export const CONTEXT_SHARE: Record<ReviewMode, number> = { quick: 0, focused: 0.2, deep: 0.3 };
/** The share is kept only for a diff of at most this many full chunks (estimated at 4 bytes a token). */
export const RESERVED_UP_TO_CHUNKS = 4;
const BYTES_PER_TOKEN = 4;
/**
 * A diff that keeps the share may have its chunks split again until each changed line's enclosing
 * scopes fit beside it (`splitForScopes`), up to this many chunks in all (a diff of four full chunks
 * has five or so); a larger pull request keeps no share, so it is never split and gets no more calls.
 * Twice as many (8) left a deep review of express's 52-file commit 41113599 at 94%; it takes 10.
 */
export const MAX_CHUNKS_SPLIT_FOR_SCOPES = 3 * RESERVED_UP_TO_CHUNKS;

export interface ChunkBudgetInput {
  contextLength: number;
  /** `promptOverheadTokens` of the review's prompt around a chunk. */
  overhead: number;
  outputReserve: number;
  mode: ReviewMode;
  level: ContextLevel;
  reviewable: readonly DiffFile[];
}

export interface ChunkBudget {
  /** Tokens a chunk's diff may take. */
  tokens: number;
  /** What the diff could take with no room kept for context: below MIN_TOKEN_BUDGET the model is too small. */
  withoutContext: number;
  /** The share was kept for the code context: the diff is small enough, the mode and `reviews.context` want it. */
  keepsContextRoom: boolean;
  /**
   * The diff is over RESERVED_UP_TO_CHUNKS full chunks: its code context looks names up through
   * imports and the changed file only, never through the repository's symbol index (decisions.md §11).
   */
  large: boolean;
}

/**
 * The chunk budget of a review: the model's context less the prompt around the diff and the output
 * reserve, and less the context share when the diff is small. The code context gives way to the diff
 * on a small model (the diff is never left out), and on a large pull request: its chunks are full of
 * diff anyway, and keeping room in each would multiply its model calls (a 2,000-file pull request:
 * 1.5 times as many).
 */
export function chunkBudget(input: ChunkBudgetInput): ChunkBudget {
  const withoutContext = input.contextLength - input.overhead - input.outputReserve;
  const reserve = input.level === 'none' ? 0 : Math.floor(input.contextLength * CONTEXT_SHARE[input.mode]);
  const diffTokens = input.reviewable.reduce((sum, file) => sum + (file.diffBytes ?? (file.additions + file.deletions) * 40), 0) / BYTES_PER_TOKEN;
  const large = diffTokens > withoutContext * RESERVED_UP_TO_CHUNKS;
  const keepsContextRoom = reserve > 0 && !large;
  return { tokens: Math.max(MIN_TOKEN_BUDGET, withoutContext - (keepsContextRoom ? reserve : 0)), withoutContext, keepsContextRoom, large };
}
