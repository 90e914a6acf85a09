import type { GitLabConnection } from './gitlab-tables.js';
import type { SecretBox } from '../../lib/crypto/secret-box.js';
import type { GitLabConnectionRepository } from './gitlab-connection-repository.js';
import { WebhookConnectionCache, type WebhookCandidate as Candidate } from '../webhook-connection-cache.js';

/** A connection of a project, with its webhook secret decrypted for `matchWebhookToken`. */
export type WebhookCandidate = Candidate<GitLabConnection>;

export interface GitLabConnectionCacheOptions {
  connections: Pick<GitLabConnectionRepository, 'listForProjectId'>;
  secretBox: SecretBox;
  ttlMs?: number;
  /** Projects kept; the oldest entry goes first. */
  maxProjects?: number;
  now?: () => number;
}

/** The connections of each GitLab project the webhook has seen, by GitLab's project id (decisions.md §12). */
export class GitLabConnectionCache extends WebhookConnectionCache<number, GitLabConnection> {
  constructor(options: GitLabConnectionCacheOptions) {
    super({ read: (projectId) => options.connections.listForProjectId(projectId), secretBox: options.secretBox, ttlMs: options.ttlMs, maxEntries: options.maxProjects, now: options.now });
  }

  /** A connection of the project was added, removed or changed on this process. */
  forgetProject(projectId: number): void {
    this.forget(projectId);
  }
}
