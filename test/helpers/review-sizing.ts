import { reviewChunkBudget, type BudgetPrompt } from '../../src/review/ask/review-budget.js';
import type { ChunkBudgetInput } from '../../src/review/prepare/chunk-budget.js';
import { prepareReview } from '../../src/review/prepare/prepare-review.js';

/**
 * A diff prepared with the review step's chunk sizing (`reviewChunkBudget`), without its skip
 * options: what the coverage bench and the split tests measure, and whether it kept the context share.
 */
export function prepareSizedAsReviewed(diff: string, prompt: BudgetPrompt, sizing: Omit<ChunkBudgetInput, 'overhead' | 'reviewable'>) {
  const sizeChunks = reviewChunkBudget(prompt, sizing);
  let keepsContextRoom = false;
  const prepared = prepareReview(diff, {
    tokenBudget: (filtered) => {
      const budget = sizeChunks(filtered);
      keepsContextRoom = budget.keepsContextRoom;
      return budget.tokens;
    },
  });
  return { prepared, keepsContextRoom };
}
