import type { SeverityCounts } from './findings.js';

/** What a pull request's header counts: lines added and removed, files changed. */
export interface DiffStats {
  additions: number;
  deletions: number;
  changedFiles: number;
}

/** What one prompt's read-only context holds (summed over the chunks into the review's `context`, decisions.md §11). */
export interface ContextStats {
  scopes: number;
  definitions: number;
  callers: number;
  tokens: number;
}

/** `context` of the review information (decisions.md §11): what the prompts held, summed over the chunks. */
export interface ReviewContextSummary extends ContextStats {
  toolCalls: number;
  snapshot: 'tarball' | 'files' | 'none';
}

/** A completed review as its owner's email tells it. */
export interface CompletedReview {
  to: string;
  name: string;
  prTitle: string;
  repository: string;
  prNumber: number;
  prHtmlUrl: string | null;
  score: number;
  counts: SeverityCounts;
  reviewUrl: string;
}
