import type { HostIntakeRules } from '../host-intake.js';

/**
 * Bitbucket's deliveries (decisions.md §16): the pull request's owner is its connection's user, while
 * the connection still holds the webhook secret the delivery's signature matched (a cached
 * connection deleted or given a new secret since is `disconnected`, nothing stored). Its key is
 * allocated in `bitbucket_pull_requests` by connection and Bitbucket's id on its first delivery.
 * One that came through an organization's connection belongs to that organization (§15).
 */
export const bitbucketIntake: HostIntakeRules = {
  kind: 'bitbucket',
  joins: [{ table: 'bitbucket_connections', alias: 'bitbucket_connection', on: 'bitbucket_connection.id = i.connection_id and bitbucket_connection.webhook_secret = i.connection_secret' }],
  ownership: 'bitbucket_connection.user_id',
  organization: 'bitbucket_connection.org_id',
  unowned: 'disconnected',
  keys: { table: 'bitbucket_pull_requests', connection: 'connection_id', number: 'number' },
  linksRepository: false,
};
