// GitLab's own tables (decisions.md §12); drizzle-kit reads every host's `*-tables.ts`.
import { bigint, index, integer, pgTable, primaryKey, text, uniqueIndex, uuid, varchar } from 'drizzle-orm/pg-core';
import { createdAt, primaryUuid, timestampMs, updatedAt } from '../../db/schema/columns.js';
import { organizations } from '../../db/schema/organizations.js';
import { newPullRequestKey } from '../../db/schema/pull-requests.js';
import { users } from '../../db/schema/users.js';

/**
 * A GitLab project connected by a user (decisions.md §12): the instance, the project, the access
 * token and the secret of the webhook the service created there. Token and secret are AES-256-GCM
 * ciphertext, never returned, never logged. A second user connecting the same project gets a
 * connection (and records) of their own.
 */
export const gitlabConnections = pgTable(
  'gitlab_connections',
  {
    id: primaryUuid(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The organization it belongs to (decisions.md §15), null in `userId`'s personal space; no cascade, as for installations. */
    orgId: uuid('org_id').references(() => organizations.id),
    /** The instance's web address without a trailing slash (`https://gitlab.com`). */
    baseUrl: text('base_url').notNull(),
    /** GitLab's project id: unique on one instance only. */
    projectId: bigint('project_id', { mode: 'number' }).notNull(),
    projectPath: text('project_path').notNull(),
    projectWebUrl: text('project_web_url').notNull(),
    token: text('token').notNull(),
    webhookSecret: text('webhook_secret').notNull(),
    hookId: bigint('hook_id', { mode: 'number' }).notNull(),
    /** The token's own user: its notes are the service's own, and `@username` addresses it. */
    tokenUserId: bigint('token_user_id', { mode: 'number' }).notNull(),
    tokenUsername: varchar('token_username', { length: 255 }).notNull(),
    /** `broken` once GitLab refuses the token (401/403); `brokenReason` says what GitLab said. */
    status: varchar('status', { length: 16 }).$type<'active' | 'broken'>().notNull().default('active'),
    brokenReason: text('broken_reason'),
    brokenAt: timestampMs('broken_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    uniqueIndex('gitlab_connections_user_project_key').on(table.userId, table.baseUrl, table.projectId),
    // The webhook finds the connections of a delivery's project.
    index('gitlab_connections_project_idx').on(table.projectId),
    index('gitlab_connections_org_idx').on(table.orgId),
  ],
);

export type GitLabConnection = typeof gitlabConnections.$inferSelect;
/**
 * Which merge request of which connection a `pull_requests` row is. GitLab's ids collide across
 * instances, and a second user connecting the same project gets records of their own, so the
 * connection and the iid name it; its `pr_id` is the row's internal key (`pull_request_key_seq`). Removed with its connection; the pull request and its reviews stay.
 */
export const gitlabMergeRequests = pgTable(
  'gitlab_merge_requests',
  {
    connectionId: uuid('connection_id')
      .notNull()
      .references(() => gitlabConnections.id, { onDelete: 'cascade' }),
    iid: integer('iid').notNull(),
    prId: bigint('pr_id', { mode: 'number' })
      .notNull()
      .unique('gitlab_merge_requests_pr_id_key')
      .default(newPullRequestKey),
    createdAt: createdAt(),
  },
  (table) => [primaryKey({ columns: [table.connectionId, table.iid] })],
);

export type GitLabMergeRequestLink = typeof gitlabMergeRequests.$inferSelect;
