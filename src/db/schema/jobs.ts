import { bigint, index, integer, jsonb, pgTable, text, uniqueIndex, varchar } from 'drizzle-orm/pg-core';
import { createdAt, timestampMs, updatedAt } from './columns.js';

/**
 * The embedded queue backend: jobs live in the database, so they survive a restart. A completed
 * job is deleted; a failed one stays with its error until someone looks at it.
 */
export const jobs = pgTable(
  'jobs',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    queue: varchar('queue', { length: 64 }).notNull(),
    /** Caller-chosen id; a second add with the same key is ignored while the first exists. */
    jobKey: varchar('job_key', { length: 256 }),
    payload: jsonb('payload').notNull(),
    status: varchar('status', { length: 16 }).$type<'waiting' | 'active' | 'failed'>().notNull().default('waiting'),
    attemptsMade: integer('attempts_made').notNull().default(0),
    maxAttempts: integer('max_attempts').notNull(),
    backoffMs: integer('backoff_ms').notNull(),
    runAt: timestampMs('run_at').notNull().defaultNow(),
    /** While active: the lease. A worker that dies stops renewing it and the job runs again. */
    lockedUntil: timestampMs('locked_until'),
    lastError: text('last_error'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    uniqueIndex('jobs_queue_key_key').on(table.queue, table.jobKey),
    index('jobs_queue_status_run_at_idx').on(table.queue, table.status, table.runAt),
  ],
);

export type JobRow = typeof jobs.$inferSelect;
