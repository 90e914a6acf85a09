import { index, integer, pgTable, uuid, varchar } from 'drizzle-orm/pg-core';
import { timestampMs } from './columns.js';
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
    reviewId: uuid('review_id').references(() => reviews.id, { onDelete: 'set null' }),
    mode: varchar('mode', { length: 16 }).$type<ReviewMode>().notNull(),
    status: varchar('status', { length: 16 }).$type<'completed' | 'failed'>().notNull(),
    startedAt: timestampMs('started_at').notNull(),
    completedAt: timestampMs('completed_at').notNull(),
    durationMs: integer('duration_ms').notNull(),
  },
  (table) => [index('review_runs_user_completed_idx').on(table.userId, table.completedAt)],
);

export type ReviewRun = typeof reviewRuns.$inferSelect;
