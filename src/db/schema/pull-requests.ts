import { bigint, boolean, index, integer, jsonb, pgTable, text, uuid, varchar } from 'drizzle-orm/pg-core';
import { createdAt, primaryUuid, updatedAt } from './columns.js';
import { users } from './users.js';

export const REVIEW_STATUSES = ['pending', 'completed', 'failed'] as const;
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];

export const pullRequests = pgTable(
  'pull_requests',
  {
    id: primaryUuid(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** GitHub's pull request id; exceeds 2^31. */
    // A constraint, not just an index: reviews reference it.
    prId: bigint('pr_id', { mode: 'number' }).notNull().unique('pull_requests_pr_id_key'),
    repositoryId: varchar('repository_id', { length: 64 }),
    repositoryName: varchar('repository_name', { length: 256 }).notNull(),
    prNumber: integer('pr_number').notNull(),
    title: text('title').notNull(),
    state: varchar('state', { length: 56 }).notNull(),
    htmlUrl: text('html_url'),
    diff: text('diff').notNull().default('0'),
    diffContent: text('diff_content'),
    draft: boolean('draft').notNull().default(false),
    merged: boolean('merged').notNull().default(false),
    reviewStatus: varchar('review_status', { length: 56 }).$type<ReviewStatus>().notNull().default('pending'),
    headBranch: varchar('head_branch', { length: 256 }).notNull(),
    baseBranch: varchar('base_branch', { length: 256 }).notNull(),
    baseSha: varchar('base_sha', { length: 64 }).notNull(),
    headSha: varchar('head_sha', { length: 64 }).notNull(),
    mergeCommitSha: varchar('merge_commit_sha', { length: 64 }),
    commitsCount: integer('commits_count'),
    additions: integer('additions'),
    deletions: integer('deletions'),
    changedFiles: integer('changed_files'),
    /** The GitHub App installation it came through (decisions.md §8); null for the plain webhook. */
    installationId: bigint('installation_id', { mode: 'number' }),
    /** The full raw webhook payload, replayed by manual re-reviews. */
    bodyBlob: jsonb('body_blob').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    // Serves the list, the summary and the repository filter, all scoped to one user by updatedAt.
    index('pull_requests_user_updated_idx').on(table.userId, table.updatedAt.desc()),
    index('pull_requests_user_status_updated_idx').on(table.userId, table.reviewStatus, table.updatedAt.desc()),
    // Commands in pull-request comments name the repository and the number.
    index('pull_requests_repository_number_idx').on(table.repositoryName, table.prNumber),
  ],
);

export type PullRequest = typeof pullRequests.$inferSelect;
