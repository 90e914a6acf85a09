import type { PullRequest } from '../db/schema/index.js';
import type { TokenOwner } from '../services/github-token.js';
import type { ChangeReader, HostSession } from './code-host.js';

/**
 * The hosts publishing can reach: a change's session on the host it came from, or undefined when
 * nothing is to be posted there (no App installation, access lost, a broken connection).
 */
export interface PublishingHosts {
  session(pr: PullRequest): Promise<HostSession | undefined>;
}

/** The hosts the review pipeline reads changes from. */
export interface ReadingHosts {
  reader(pr: PullRequest, owner: TokenOwner | undefined): ChangeReader;
}
