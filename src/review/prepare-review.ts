import type { ReviewCoverage } from '../db/schema/reviews.js';
import { chunkFiles, computeCoverage, type ChunkingOptions, type ReviewChunk } from './chunking.js';
import type { DiffFile } from './diff/diff-types.js';
import { parseUnifiedDiff } from './diff/parse-unified-diff.js';
import { applySkipRules, type SkipOptions, type SkippedFile } from './diff/skip-rules.js';

export interface PreparedReview {
  /** Every file of the diff, parsed. */
  files: DiffFile[];
  /** The files left after the skip rules, in diff order. */
  reviewable: DiffFile[];
  skipped: SkippedFile[];
  chunks: ReviewChunk[];
  coverage: ReviewCoverage;
}

export type PrepareOptions = ChunkingOptions & SkipOptions;

/** Parse, filter and chunk a pull request's diff: everything before the model calls. */
export function prepareReview(diffText: string, options: PrepareOptions): PreparedReview {
  const files = parseUnifiedDiff(diffText);
  const { reviewable, skipped } = applySkipRules(files, options);
  const chunks = chunkFiles(reviewable, options);
  return { files, reviewable, skipped, chunks, coverage: computeCoverage(files, reviewable) };
}
