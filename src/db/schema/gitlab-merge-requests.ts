import { sql } from 'drizzle-orm';
import { bigint, integer, pgSequence, pgTable, primaryKey, uuid } from 'drizzle-orm/pg-core';
import { createdAt } from './columns.js';
import { gitlabConnections } from './gitlab-connections.js';

/**
 * The internal key of merge requests' rows in `pull_requests.pr_id` (which reviews reference):
 * negative, so it never meets a GitHub pull request id. Never shown: the API names a merge request
 * by its record's UUID (decisions.md §12).
 */
export const gitlabPrIdSequence = pgSequence('gitlab_pr_id_seq', { startWith: 1, increment: 1 });

/**
 * Which merge request of which connection a `pull_requests` row is. GitLab's ids collide across
 * instances, and a second user connecting the same project gets records of their own, so the
 * connection and the iid name it. Removed with its connection; the pull request and its reviews stay.
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
      .default(sql`-nextval('gitlab_pr_id_seq')`),
    createdAt: createdAt(),
  },
  (table) => [primaryKey({ columns: [table.connectionId, table.iid] })],
);

export type GitLabMergeRequestLink = typeof gitlabMergeRequests.$inferSelect;
