import { bigint, index, integer, jsonb, pgTable, text, uniqueIndex, uuid, varchar } from 'drizzle-orm/pg-core';
import { timestampMs } from './columns.js';
import { pullRequests, type ReviewStatus } from './pull-requests.js';
import { users } from './users.js';

export const PIPELINE_STATES = [
  'WEBHOOK_RECEIVED',
  'PAYLOAD_SANITIZED',
  'PR_CONTENT_EXTRACTED',
  'PROCESSING_COMPLETED',
  'PROCESSING_FAILED',
] as const;
export type PipelineState = (typeof PIPELINE_STATES)[number];

export const REVIEW_MODES = ['quick', 'focused', 'deep'] as const;
export type ReviewMode = (typeof REVIEW_MODES)[number];

export interface ReviewCoverage {
  files: number;
  reviewableFiles: number;
  lines: number;
  reviewableLines: number;
}

/** What a finished run left on the review row (`ReviewRepository.dismiss` restores it). */
export interface PreviousRun {
  status: ReviewStatus;
  state: PipelineState;
  headSha: string | null;
  mode: ReviewMode;
  triggedBy: 'webhook' | 'manual';
  attemptNumber: number;
  duration: number;
  failureReason: string | null;
  startedAt: string;
  completedAt: string | null;
}

/** One review per pull request; its id is the pull request's internal id. */
export const reviews = pgTable(
  'reviews',
  {
    id: uuid('id').primaryKey(),
    prId: bigint('pr_id', { mode: 'number' })
      .notNull()
      .references(() => pullRequests.prId, { onDelete: 'cascade' }),
    // Denormalized from the pull request so the dashboard list is one index range per user.
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** A new id for every run: a job of an older run (superseded by a push or a re-run) sees it changed and stops. */
    runId: uuid('run_id').notNull().defaultRandom(),
    state: varchar('state', { length: 56 }).$type<PipelineState>().notNull().default('WEBHOOK_RECEIVED'),
    status: varchar('status', { length: 56 }).$type<ReviewStatus>().notNull().default('pending'),
    triggedBy: varchar('trigged_by', { length: 16 }).$type<'webhook' | 'manual'>().notNull(),
    mode: varchar('mode', { length: 16 }).$type<ReviewMode>().notNull().default('focused'),
    attemptNumber: integer('attempt_number').notNull().default(1),
    duration: integer('duration').notNull().default(0),
    reviewSummary: text('review_summary'),
    /** The commit the current (or last) run reviews; a new run for the same commit is not started twice. */
    headSha: varchar('head_sha', { length: 64 }),
    /** The commit of the last completed review: an incremental review starts from it. */
    reviewdSha: varchar('reviewd_sha', { length: 64 }),
    reviewRawJson: jsonb('review_raw_json'),
    /** For a push to a reviewed pull request: the diff since the last reviewed commit (GitHub's compare). */
    incrementalDiff: text('incremental_diff'),
    coverage: jsonb('coverage').$type<ReviewCoverage>(),
    failureReason: text('failure_reason'),
    /** The mode a command or `POST /review` named; null lets `.ai-review.yml` choose (decisions.md §10). */
    requestedMode: varchar('requested_mode', { length: 16 }).$type<ReviewMode>(),
    /** The repository's `.ai-review.yml` as this run read it at the base commit (the review step applies it). */
    repositoryConfig: jsonb('repository_config'),
    /** The last finished run's outcome, put back when `.ai-review.yml` switches a delivery's run off. */
    previousRun: jsonb('previous_run').$type<PreviousRun>(),
    startedAt: timestampMs('started_at').notNull().defaultNow(),
    completedAt: timestampMs('completed_at'),
  },
  (table) => [
    uniqueIndex('reviews_pr_id_key').on(table.prId),
    index('reviews_user_started_idx').on(table.userId, table.startedAt.desc().nullsFirst(), table.id.desc().nullsFirst()),
  ],
);

export type Review = typeof reviews.$inferSelect;
