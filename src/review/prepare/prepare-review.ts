import type { ReviewCoverage } from '../../db/schema/reviews.js';
import { chunkingSteps, computeCoverage, type ChunkingOptions, type ReviewChunk } from './chunking.js';
import type { DiffFile } from './diff/diff-types.js';
import { diffFiles } from './diff/parse-unified-diff.js';
import { withoutLayoutChanges } from './layout-changes.js';
import { skipRuleSteps, type SkipOptions, type SkippedChanges, type SkippedFile } from './skip-rules.js';
import { resetTokenCounting } from './tokens.js';
import { runInSlices, runToEnd, type Steps } from '../../lib/time-slices.js';

/** A pull request's diff after parsing and the skip rules. */
export interface FilteredDiff {
  /** Every file of the diff, parsed. */
  files: DiffFile[];
  /**
   * Every file of the diff without its layout-only changes: what the diff really changed, for
   * carrying earlier findings through a push (a re-indented line keeps its finding).
   */
  changes: DiffFile[];
  /** The files left after the skip rules, in diff order, without their layout-only changes. */
  reviewable: DiffFile[];
  skipped: SkippedFile[];
  /** Layout-only changes of reviewed files, left out of what the model reads. */
  skippedChanges: SkippedChanges[];
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
  };

/** Parse, filter and chunk a pull request's diff: everything before the model calls. */
export function prepareReview(diffText: string, options: PrepareOptions): PreparedReview {
  return runToEnd(preparing(diffText, options));
}

/**
 * Pauses of the event loop at most this long, about, while a review is prepared in a process that
 * also serves HTTP: a 2,000-file pull request takes about a second to prepare.
 */
export const PREPARE_SLICE_MS = 5;

/**
 * `prepareReview` in slices of `sliceMs`, letting the event loop in between (pauses after each file
 * parsed, judged and chunked): what the review workers use, so that the webhook and the API
 * answer while a large pull request is prepared beside them.
 */
export function prepareReviewInSlices(diffText: string, options: PrepareOptions, sliceMs = PREPARE_SLICE_MS): Promise<PreparedReview> {
  return runInSlices(preparing(diffText, options), sliceMs);
}

function* preparing(diffText: string, options: PrepareOptions): Steps<PreparedReview> {
  resetTokenCounting();
  const files: DiffFile[] = [];
  for (const file of diffFiles(diffText)) {
    files.push(file);
    yield;
  }
  const { reviewable, skipped, skippedChanges } = yield* skipRuleSteps(files, options);
  const cleaned = new Map(reviewable.map((file) => [file.path, file]));
  const changes = files.map((file) => cleaned.get(file.path) ?? withoutLayoutChanges(file).file);
  const filtered = { files, changes, reviewable, skipped, skippedChanges, coverage: computeCoverage(files, reviewable) };
  if (reviewable.length === 0) return { ...filtered, chunks: [] };
  const tokenBudget = typeof options.tokenBudget === 'number' ? options.tokenBudget : options.tokenBudget(filtered);
  return { ...filtered, chunks: yield* chunkingSteps(reviewable, { ...options, tokenBudget }) };
}
