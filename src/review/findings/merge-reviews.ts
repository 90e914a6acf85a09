import type { DiffFile } from '../prepare/diff/diff-types.js';
import { selectFindings, type FindingCounts, type SelectOptions } from './select-findings.js';
import { RISKS, type ReviewOutput } from '../answer/review-output.js';

export interface ChunkReview {
  review: ReviewOutput;
  /** Changed lines of the chunk (`ReviewChunk.changedLines`): the largest chunk's intent is kept. */
  changedLines: number;
}

/**
 * One review from the reviews of several chunks, mechanically: distinct overviews as paragraphs,
 * the intent read from the largest chunk, the highest risk, all comments, fix prompts joined, and
 * the lowest of each confidence: they mean "safe to merge" (the dashboard score), and a pull request
 * is as safe as its worst part. A pipeline that wants a single-paragraph overview of a large pull
 * request asks the model for it; the rest stays as merged here.
 */
export function mergeReviews(parts: readonly ChunkReview[]): ReviewOutput {
  const reviews = parts.map((part) => part.review);
  const largest = [...parts].sort((a, b) => b.changedLines - a.changedLines)[0]?.review;
  const comments = reviews.flatMap((review) => review.comments);
  const fixPrompts = distinct(reviews.map((review) => review.agenticFixPrompt ?? ''));
  return {
    summary: {
      overview: distinct(reviews.map((review) => review.summary.overview)).join('\n\n'),
      intent: largest?.summary.intent || (reviews.find((review) => review.summary.intent !== '')?.summary.intent ?? ''),
      risk: RISKS[Math.max(0, ...reviews.map((review) => RISKS.indexOf(review.summary.risk)))]!,
      findingsCount: comments.length,
    },
    comments,
    confidence: {
      overall: lowest(reviews.map((review) => review.confidence.overall)),
      performance: lowest(reviews.map((review) => review.confidence.performance)),
      security: lowest(reviews.map((review) => review.confidence.security)),
    },
    agenticFixPrompt: fixPrompts.length > 0 ? fixPrompts.join('\n\n') : null,
  };
}

export interface FinalReview {
  review: ReviewOutput;
  counts: FindingCounts;
}

/** Merge the chunks' reviews, then keep only trustworthy findings (see `selectFindings`). */
export function finalizeReview(parts: readonly ChunkReview[], files: readonly DiffFile[], options: SelectOptions = {}): FinalReview {
  const merged = mergeReviews(parts);
  const { findings, counts } = selectFindings(merged.comments, files, options);
  return { review: { ...merged, comments: findings, summary: { ...merged.summary, findingsCount: findings.length } }, counts };
}

function distinct(texts: readonly string[]): string[] {
  return [...new Set(texts.map((text) => text.trim()).filter((text) => text !== ''))];
}

function lowest(values: ReadonlyArray<number | null>): number | null {
  const known = values.filter((value) => value !== null);
  return known.length === 0 ? null : Math.min(...known);
}
