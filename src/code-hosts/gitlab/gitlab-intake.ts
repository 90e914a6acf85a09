import type { HostIntakeRules } from '../host-intake.js';

/**
 * GitLab's deliveries (decisions.md §12): the merge request's owner is its connection's user, while
 * the connection still holds the webhook secret the delivery's token matched (a cached connection
 * deleted or given a new secret since is `disconnected`, nothing stored). Its key is allocated in
 * `gitlab_merge_requests` by connection and iid on its first delivery.
 * One that came through an organization's connection belongs to that organization (§15).
 */
export const gitlabIntake: HostIntakeRules = {
  kind: 'gitlab',
  joins: [{ table: 'gitlab_connections', alias: 'gitlab_connection', on: 'gitlab_connection.id = i.connection_id and gitlab_connection.webhook_secret = i.connection_secret' }],
  ownership: 'gitlab_connection.user_id',
  organization: 'gitlab_connection.org_id',
  unowned: 'disconnected',
  keys: { table: 'gitlab_merge_requests', connection: 'connection_id', number: 'iid' },
  linksRepository: false,
};
