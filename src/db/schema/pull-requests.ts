import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, json, pgSequence, pgTable, text, uuid, varchar } from 'drizzle-orm/pg-core';
import type { HostKind } from '../../domain/host-kinds.js';
import { createdAt, primaryUuid, updatedAt } from './columns.js';
import { organizations } from './organizations.js';
import { users } from './users.js';

export const REVIEW_STATUSES = ['pending', 'completed', 'failed'] as const;
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];

/**
 * The internal keys of pull requests whose host id is not GitHub's (every other host): one sequence
 * for all of them, negated, so a key never meets a GitHub id nor another host's key. A host's link
 * table (`gitlab_merge_requests`) takes its default from `newPullRequestKey`; the API never shows
 * a key (`lib/ids.ts`).
 */
export const pullRequestKeySequence = pgSequence('pull_request_key_seq', { startWith: 1, increment: 1 });
export const newPullRequestKey = sql`-nextval('pull_request_key_seq')`;

export const pullRequests = pgTable(
  'pull_requests',
  {
    id: primaryUuid(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /**
     * The organization it belongs to (decisions.md §15), null in a personal space: its settings,
     * keys, allowance and spend limit pay for its reviews. Intake sets it from the installation or
     * connection it arrived through.
     */
    orgId: uuid('org_id').references(() => organizations.id, { onDelete: 'cascade' }),
    /**
     * Positive: GitHub's pull request id (exceeds 2^31), kept as it always was. Negative: an internal
     * key from `pull_request_key_seq`, for every other host, the API naming it by `id` instead
     * (decisions.md §12, `lib/ids.ts`).
     */
    // A constraint, not just an index: reviews reference it.
    prId: bigint('pr_id', { mode: 'number' }).notNull().unique('pull_requests_pr_id_key'),
    /** The code host it lives on (decisions.md §12). */
    provider: varchar('provider', { length: 16 }).$type<HostKind>().notNull().default('github'),
    repositoryId: varchar('repository_id', { length: 64 }),
    repositoryName: varchar('repository_name', { length: 256 }).notNull(),
    prNumber: integer('pr_number').notNull(),
    title: text('title').notNull(),
    /**
     * What a title search matches: the title's first 256 characters (GitHub's limit for a title),
     * lower-cased, so a search is a plain LIKE of the lower-cased term, four times cheaper a row
     * than ILIKE and the same match (PostgreSQL's ILIKE lower-cases both sides). Bounded so that
     * the list indexes can carry it beside a repository name (an index entry must fit in a third of
     * a page, whatever a hostile payload holds); a column, not an index expression, because only a
     * column lets a scan filter on it from the index alone.
     */
    searchTitle: text('search_title').generatedAlwaysAs(sql`lower(left(title, 256))`),
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
    /**
     * The full raw webhook payload, replayed by manual re-reviews. `json`, not `jsonb`: it keeps the
     * text as GitHub sent it, `\u0000` escapes included (decisions.md §7), and costs no conversion.
     * Read it whole; PostgreSQL's json operators refuse such escapes.
     */
    bodyBlob: json('body_blob').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    // Each list variant is one range of one index, in its order, tie-breaker (id) included, so a
    // page reads 20 entries and sorts nothing; `asc` walks the same index backwards. NULLS FIRST is
    // what `ORDER BY … DESC` means: drizzle's bare desc() writes NULLS LAST, which no query matches.
    // Each ends with the searchable title: a search for a common term walks the range and reads
    // each title from the index (an index-only scan), not from the rows it skips. The personal ones
    // end with the organization, so that the personal range (`org_id is null`) stays index-only.
    // An organization's range, as a user's personal one: the lists read one range per space
    // (personal, each organization) and merge them.
    index('pull_requests_org_updated_idx').on(table.orgId, table.updatedAt.desc().nullsFirst(), table.id.desc().nullsFirst(), table.searchTitle),
    index('pull_requests_user_updated_idx').on(table.userId, table.updatedAt.desc().nullsFirst(), table.id.desc().nullsFirst(), table.searchTitle, table.orgId),
    index('pull_requests_user_status_updated_idx').on(table.userId, table.reviewStatus, table.updatedAt.desc().nullsFirst(), table.id.desc().nullsFirst(), table.searchTitle, table.orgId),
    index('pull_requests_user_repository_updated_idx').on(table.userId, table.repositoryName, table.updatedAt.desc().nullsFirst(), table.id.desc().nullsFirst(), table.searchTitle, table.orgId),
    // Title search (ILIKE '%term%') for a term too rare to fill a page from the newest rows:
    // trigrams, with the user and the list filters in the same GIN index (btree_gin), so the
    // user's few matches with that status or repository are found without reading the others.
    index('pull_requests_user_title_search_idx').using('gin', table.userId, table.reviewStatus, table.repositoryName, sql`${table.searchTitle} gin_trgm_ops`),
    // Commands in pull-request comments name the repository and the number.
    index('pull_requests_repository_number_idx').on(table.repositoryName, table.prNumber),
  ],
);

export type PullRequest = typeof pullRequests.$inferSelect;
