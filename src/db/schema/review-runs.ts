import { index, integer, pgTable, uuid, varchar } from 'drizzle-orm/pg-core';
import { timestampMs } from './columns.js';
import { organizations } from './organizations.js';
import { reviews, type ReviewMode } from './reviews.js';
import { users } from './users.js';

/** One row per finished review run (completed or failed), from queue to completion. */
export const reviewRuns = pgTable(
  'review_runs',
  {
    runId: uuid('run_id').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** Set when the run reviewed an organization's pull request: it counts in the organization's usage, not the user's. */
    orgId: uuid('org_id').references(() => organizations.id, { onDelete: 'cascade' }),
    reviewId: uuid('review_id').references(() => reviews.id, { onDelete: 'set null' }),
    mode: varchar('mode', { length: 16 }).$type<ReviewMode>().notNull(),
    status: varchar('status', { length: 16 }).$type<'completed' | 'failed'>().notNull(),
    startedAt: timestampMs('started_at').notNull(),
    completedAt: timestampMs('completed_at').notNull(),
    durationMs: integer('duration_ms').notNull(),
  },
  (table) => [index('review_runs_user_completed_idx').on(table.userId, table.completedAt), index('review_runs_org_completed_idx').on(table.orgId, table.completedAt)],
);

export type ReviewRun = typeof reviewRuns.$inferSelect;
