import { index, pgTable, text, uniqueIndex, uuid, varchar } from 'drizzle-orm/pg-core';
import { createdAt, primaryUuid, updatedAt } from './columns.js';
import { pullRequests } from './pull-requests.js';
import { users } from './users.js';

export const FINDING_VERDICTS = ['helpful', 'wrong', 'wontfix'] as const;
export type FindingVerdict = (typeof FINDING_VERDICTS)[number];

/**
 * A team's verdict on one finding of a pull request's review (decisions.md §10). The finding's
 * file, title and comment are kept, so a later finding that says the same can be recognized after
 * the review that held it was replaced.
 */
export const findingVerdicts = pgTable(
  'finding_verdicts',
  {
    id: primaryUuid(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    pullRequestId: uuid('pull_request_id')
      .notNull()
      .references(() => pullRequests.id, { onDelete: 'cascade' }),
    repositoryName: varchar('repository_name', { length: 256 }).notNull(),
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
    index('finding_verdicts_user_repository_idx').on(table.userId, table.repositoryName),
  ],
);

/** The note of a `wrong` verdict: added to the prompt of the repository's later reviews. */
export const repositoryLearnings = pgTable(
  'repository_learnings',
  {
    id: primaryUuid(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
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
    index('repository_learnings_user_repository_idx').on(table.userId, table.repositoryName, table.createdAt.desc()),
  ],
);

export type FindingVerdictRow = typeof findingVerdicts.$inferSelect;
export type RepositoryLearning = typeof repositoryLearnings.$inferSelect;
