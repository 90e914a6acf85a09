import { sql } from 'drizzle-orm';
import { check, index, pgTable, text, uniqueIndex, uuid, varchar } from 'drizzle-orm/pg-core';
import { createdAt, primaryUuid, updatedAt } from './columns.js';
import { diffReviews } from './diff-reviews.js';
import { oneOwner, ownerColumns } from './owner-columns.js';
import { pullRequests } from './pull-requests.js';

export const FINDING_VERDICTS = ['helpful', 'wrong', 'wontfix'] as const;
export type FindingVerdict = (typeof FINDING_VERDICTS)[number];

/**
 * A team's verdict on one finding of a pull request's review (decisions.md §10), or of a diff
 * review (§17: without a repository, it is kept on that review alone and teaches nothing). The finding's
 * file, title and comment are kept, so a later finding that says the same can be recognized after
 * the review that held it was replaced. Owned as its pull request is (§15): by the organization when
 * it is an organization's, whichever member gave it, else by the pull request's user.
 */
export const findingVerdicts = pgTable(
  'finding_verdicts',
  {
    id: primaryUuid(),
    ...ownerColumns(),
    pullRequestId: uuid('pull_request_id').references(() => pullRequests.id, { onDelete: 'cascade' }),
    diffReviewId: uuid('diff_review_id').references(() => diffReviews.id, { onDelete: 'cascade' }),
    repositoryName: varchar('repository_name', { length: 256 }),
    findingId: varchar('finding_id', { length: 64 }).notNull(),
    verdict: varchar('verdict', { length: 16 }).$type<FindingVerdict>().notNull(),
    note: text('note'),
    file: text('file').notNull(),
    title: text('title').notNull(),
    comment: text('comment').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    uniqueIndex('finding_verdicts_pr_finding_key').on(table.pullRequestId, table.findingId),
    uniqueIndex('finding_verdicts_diff_review_finding_key').on(table.diffReviewId, table.findingId),
    check('finding_verdicts_one_review', sql`(${table.pullRequestId} is null) <> (${table.diffReviewId} is null)`),
    oneOwner('finding_verdicts', table),
    index('finding_verdicts_user_repository_idx').on(table.userId, table.repositoryName),
    index('finding_verdicts_org_repository_idx').on(table.orgId, table.repositoryName),
  ],
);

/** The note of a `wrong` verdict: added to the prompt of the repository's later reviews. Its verdict's owner owns it. */
export const repositoryLearnings = pgTable(
  'repository_learnings',
  {
    id: primaryUuid(),
    ...ownerColumns(),
    verdictId: uuid('verdict_id')
      .notNull()
      .references(() => findingVerdicts.id, { onDelete: 'cascade' }),
    repositoryName: varchar('repository_name', { length: 256 }).notNull(),
    note: text('note').notNull(),
    findingTitle: text('finding_title').notNull(),
    createdAt: createdAt(),
  },
  (table) => [
    uniqueIndex('repository_learnings_verdict_key').on(table.verdictId),
    oneOwner('repository_learnings', table),
    index('repository_learnings_user_repository_idx').on(table.userId, table.repositoryName, table.createdAt.desc()),
    index('repository_learnings_org_repository_idx').on(table.orgId, table.repositoryName, table.createdAt.desc()),
  ],
);

export type FindingVerdictRow = typeof findingVerdicts.$inferSelect;
export type RepositoryLearning = typeof repositoryLearnings.$inferSelect;
