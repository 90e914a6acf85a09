import type { ChunkBudget, ChunkBudgetInput } from '../prepare/chunk-budget.js';
import { chunkBudget } from '../prepare/chunk-budget.js';
import type { FilteredDiff } from '../prepare/prepare-review.js';
import { promptOverheadTokens, type ReviewPromptInput } from './prompts.js';

/** The prompt around every chunk, before the diff's files are known. */
export type BudgetPrompt = Omit<ReviewPromptInput, 'chunk' | 'codeContext' | 'skipped' | 'reviewablePaths' | 'chunkCount'>;

/**
 * How a review sizes its chunks once the skip rules have run (`prepareReview`'s `tokenBudget`): the
 * prompt's overhead with the files it will list, then `chunkBudget`. The review step, the coverage
 * bench and the tests size chunks with this one function, so they cannot drift apart.
 */
export function reviewChunkBudget(prompt: BudgetPrompt, sizing: Omit<ChunkBudgetInput, 'overhead' | 'reviewable'>) {
  return ({ skipped, reviewable }: Pick<FilteredDiff, 'skipped' | 'reviewable'>): ChunkBudget => {
    // Two chunks or more: the prompt then says which chunk it is, the larger overhead.
    const overhead = promptOverheadTokens({ ...prompt, skipped, reviewablePaths: reviewable.map((file) => file.path), chunkCount: 2 });
    return chunkBudget({ ...sizing, overhead, reviewable });
  };
}
