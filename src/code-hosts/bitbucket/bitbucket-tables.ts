import { bigint, boolean, index, integer, pgTable, primaryKey, text, uniqueIndex, uuid, varchar } from 'drizzle-orm/pg-core';
import { createdAt, primaryUuid, timestampMs, updatedAt } from '../../db/schema/columns.js';
import { organizations } from '../../db/schema/organizations.js';
import { newPullRequestKey } from '../../db/schema/pull-requests.js';
import { users } from '../../db/schema/users.js';

/**
 * A Bitbucket Cloud repository connected by a user (decisions.md §16): the token (a repository,
 * project or workspace access token, or with `email` an Atlassian API token) and the secret of the
 * webhook the service created there. Token and secret are AES-256-GCM ciphertext, never returned,
 * never logged. A second user connecting the same repository gets a connection (and records) of
 * their own. The host's tables live in its folder; `drizzle.config.ts` reads them from there.
 */
export const bitbucketConnections = pgTable(
  'bitbucket_connections',
  {
    id: primaryUuid(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The organization it belongs to (decisions.md §15), null in `userId`'s personal space. */
    orgId: uuid('org_id').references(() => organizations.id),
    workspace: varchar('workspace', { length: 255 }).notNull(),
    repoSlug: varchar('repo_slug', { length: 255 }).notNull(),
    /** Bitbucket's repository UUID with its braces (`{…}`): what a delivery names its repository by. */
    repositoryUuid: varchar('repository_uuid', { length: 64 }).notNull(),
    fullName: text('full_name').notNull(),
    htmlUrl: text('html_url').notNull(),
    token: text('token').notNull(),
    /** The Atlassian account of an API token (Basic auth); null for an access token (Bearer). */
    email: text('email'),
    webhookSecret: text('webhook_secret').notNull(),
    hookUuid: varchar('hook_uuid', { length: 64 }).notNull(),
    /** Whether the token may read permissions: commands are run only then (decisions.md §16, fail closed). */
    commands: boolean('commands').notNull().default(false),
    /** The account the service writes as: its comments are never commands. Learned from `GET /user`, or from the first comment it created. */
    accountUuid: varchar('account_uuid', { length: 64 }),
    /** `broken` once Bitbucket refuses the token (401/403); `brokenReason` says what Bitbucket said. */
    status: varchar('status', { length: 16 }).$type<'active' | 'broken'>().notNull().default('active'),
    brokenReason: text('broken_reason'),
    brokenAt: timestampMs('broken_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    uniqueIndex('bitbucket_connections_user_repository_key').on(table.userId, table.repositoryUuid),
    // The webhook finds the connections of a delivery's repository.
    index('bitbucket_connections_repository_idx').on(table.repositoryUuid),
    index('bitbucket_connections_org_idx').on(table.orgId),
  ],
);

export type BitbucketConnection = typeof bitbucketConnections.$inferSelect;
export type NewBitbucketConnection = typeof bitbucketConnections.$inferInsert;

/**
 * Which pull request of which connection a `pull_requests` row is: Bitbucket's ids are unique only
 * within a repository (facts §1), so the connection and the id name it, and its `pr_id` is the
 * row's internal key (`pull_request_key_seq`). Removed with its connection; the pull request and
 * its reviews stay.
 */
export const bitbucketPullRequests = pgTable(
  'bitbucket_pull_requests',
  {
    connectionId: uuid('connection_id')
      .notNull()
      .references(() => bitbucketConnections.id, { onDelete: 'cascade' }),
    number: integer('number').notNull(),
    prId: bigint('pr_id', { mode: 'number' })
      .notNull()
      .unique('bitbucket_pull_requests_pr_id_key')
      .default(newPullRequestKey),
    createdAt: createdAt(),
  },
  (table) => [primaryKey({ columns: [table.connectionId, table.number] })],
);
