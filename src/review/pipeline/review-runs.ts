import type { Review } from '../../db/schema/index.js';

/** A run's job may act only while its run is the review's current, pending one. */
export const isCurrentRun = (review: Review | undefined, runId: string): review is Review =>
  review !== undefined && review.runId === runId && review.status === 'pending';

/** Two names of one commit: equal, or one the prefix of the other (Bitbucket's events name commits by 12 characters, the reviewed one is kept whole). */
export const sameCommit = (a: string, b: string): boolean => a === b || (Math.min(a.length, b.length) >= 7 && (a.startsWith(b) || b.startsWith(a)));
