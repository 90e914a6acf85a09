import { bigint, integer, pgTable, primaryKey, uuid } from 'drizzle-orm/pg-core';
import { createdAt } from './columns.js';
import { gitlabConnections } from './gitlab-connections.js';
import { newPullRequestKey } from './pull-requests.js';

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
