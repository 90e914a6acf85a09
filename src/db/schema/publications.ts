import { bigint, index, pgTable, primaryKey, text, uuid, varchar } from 'drizzle-orm/pg-core';
import { createdAt, timestampMs, updatedAt } from './columns.js';
import { pullRequests } from './pull-requests.js';

export const PUBLICATION_STATES = ['pending', 'published', 'failed'] as const;
export type PublicationState = (typeof PUBLICATION_STATES)[number];

/**
 * What the service posted on a pull request, whatever its host (decisions.md §8): the state of the
 * latest run's publication, the `AI review` status of the reviewed commit (a GitHub check run, a
 * GitLab commit status) and the one summary comment, edited in place.
 */
export const publications = pgTable('publications', {
  pullRequestId: uuid('pull_request_id')
    .primaryKey()
    .references(() => pullRequests.id, { onDelete: 'cascade' }),
  /** The review run this publication is for; another run means a publication still to come. */
  runId: uuid('run_id').notNull(),
  state: varchar('state', { length: 16 }).$type<PublicationState>().notNull().default('pending'),
  reason: text('reason'),
  headSha: varchar('head_sha', { length: 64 }),
  statusId: bigint('status_id', { mode: 'number' }),
  statusSha: varchar('status_sha', { length: 64 }),
  statusUrl: text('status_url'),
  summaryCommentId: bigint('summary_comment_id', { mode: 'number' }),
  summaryCommentUrl: text('summary_comment_url'),
  reviewUrl: text('review_url'),
  updatedAt: updatedAt(),
});

export type Publication = typeof publications.$inferSelect;

/**
 * Which inline comment carries which finding: a reply to the comment maps to its finding (verdicts,
 * decisions.md §10), and a finding gone after a push finds the thread to resolve.
 */
export const postedFindings = pgTable(
  'posted_findings',
  {
    pullRequestId: uuid('pull_request_id')
      .notNull()
      .references(() => pullRequests.id, { onDelete: 'cascade' }),
    findingId: varchar('finding_id', { length: 64 }).notNull(),
    commentId: bigint('comment_id', { mode: 'number' }).notNull(),
    commentUrl: text('comment_url'),
    commitSha: varchar('commit_sha', { length: 64 }).notNull(),
    /** When the thread was resolved (or answered) because the finding was gone. */
    resolvedAt: timestampMs('resolved_at'),
    createdAt: createdAt(),
  },
  (table) => [primaryKey({ columns: [table.pullRequestId, table.findingId] }), index('posted_findings_comment_idx').on(table.commentId)],
);

export type PostedFinding = typeof postedFindings.$inferSelect;
