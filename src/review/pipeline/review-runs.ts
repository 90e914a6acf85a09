import type { Review } from '../../db/schema/index.js';

/** A run's job may act only while its run is the review's current, pending one. */
export const isCurrentRun = (review: Review | undefined, runId: string): review is Review =>
  review !== undefined && review.runId === runId && review.status === 'pending';
