import type { ReviewCoverage } from '../../db/schema/reviews.js';
import { chunkFiles, computeCoverage, type ChunkingOptions, type ReviewChunk } from './chunking.js';
import type { DiffFile } from './diff/diff-types.js';
import { parseUnifiedDiff } from './diff/parse-unified-diff.js';
import { applyRepositoryExclusions } from './repository-exclusions.js';
import { applySkipRules, type SkipOptions, type SkippedFile } from './skip-rules.js';

/** A pull request's diff after parsing and the skip rules. */
export interface FilteredDiff {
  /** Every file of the diff, parsed. */
  files: DiffFile[];
  /** The files left after the skip rules, in diff order. */
  reviewable: DiffFile[];
  skipped: SkippedFile[];
  coverage: ReviewCoverage;
}

export interface PreparedReview extends FilteredDiff {
  chunks: ReviewChunk[];
}

export type PrepareOptions = Omit<ChunkingOptions, 'tokenBudget'> &
  SkipOptions & {
    /**
     * Tokens a chunk's diff may take, or how to work it out from the filtered diff: the prompt
     * around each chunk lists the skipped and reviewable files, so its size depends on them.
     */
    tokenBudget: number | ((filtered: FilteredDiff) => number);
    /** `.ai-review.yml`'s `exclude`: such files are skipped before the other rules. */
    repositoryExclude?: (path: string) => boolean;
  };

/** Parse, filter and chunk a pull request's diff: everything before the model calls. */
export function prepareReview(diffText: string, options: PrepareOptions): PreparedReview {
  const files = parseUnifiedDiff(diffText);
  const { kept, excluded } = applyRepositoryExclusions(files, options.repositoryExclude);
  const { reviewable, skipped: skippedByRules } = applySkipRules(kept, options);
  const skipped = [...excluded, ...skippedByRules];
  const filtered = { files, reviewable, skipped, coverage: computeCoverage(files, reviewable) };
  if (reviewable.length === 0) return { ...filtered, chunks: [] };
  const tokenBudget = typeof options.tokenBudget === 'number' ? options.tokenBudget : options.tokenBudget(filtered);
  return { ...filtered, chunks: chunkFiles(reviewable, { ...options, tokenBudget }) };
}
