import { index, integer, jsonb, pgTable, text, uuid, varchar } from 'drizzle-orm/pg-core';
import { createdAt, primaryUuid, timestampMs } from './columns.js';
import { organizations } from './organizations.js';
import type { ReviewCoverage, ReviewMode } from './reviews.js';
import { users } from './users.js';

export const DIFF_REVIEW_STATUSES = ['queued', 'running', 'completed', 'failed'] as const;
export type DiffReviewStatus = (typeof DIFF_REVIEW_STATUSES)[number];

/** A head version of a file the diff changes or one it imports: the code context when there is no snapshot (decisions.md §17). */
export interface SentFile {
  path: string;
  content: string;
}

/**
 * A review of a diff sent by the command line or a script (decisions.md §17): the same engine as a
 * pull request's, with the change and its code carried in the row rather than read from a host.
 */
export const diffReviews = pgTable(
  'diff_reviews',
  {
    id: primaryUuid(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    orgId: uuid('org_id').references(() => organizations.id, { onDelete: 'set null' }),
    status: varchar('status', { length: 16 }).$type<DiffReviewStatus>().notNull().default('queued'),
    title: text('title'),
    /** `owner/name`: whose learnings the review reads and its verdicts teach; null keeps verdicts on the review alone. */
    repositoryName: varchar('repository_name', { length: 256 }),
    mode: varchar('mode', { length: 16 }).$type<ReviewMode>().notNull(),
    diff: text('diff').notNull(),
    files: jsonb('files').$type<SentFile[]>().notNull(),
    /** The `.ai-review.yml` sent, parsed (problems included). */
    repositoryConfig: jsonb('repository_config'),
    /** Chunks reviewed so far, of `progressTotal`: the events stream replays them. */
    progressDone: integer('progress_done').notNull().default(0),
    progressTotal: integer('progress_total'),
    error: text('error'),
    reviewSummary: text('review_summary'),
    reviewRawJson: jsonb('review_raw_json'),
    coverage: jsonb('coverage').$type<ReviewCoverage>(),
    createdAt: createdAt(),
    completedAt: timestampMs('completed_at'),
  },
  (table) => [index('diff_reviews_user_created_idx').on(table.userId, table.createdAt.desc().nullsFirst(), table.id.desc().nullsFirst())],
);

export type DiffReview = typeof diffReviews.$inferSelect;
