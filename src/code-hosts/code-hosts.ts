import type { PullRequest } from '../db/schema/index.js';
import type { ChangeReader, HostSession, TokenOwner } from './code-host.js';

/**
 * The hosts publishing can reach: a change's session on the host it came from, or undefined when
 * nothing is to be posted there (no App installation, access lost, a broken connection).
 */
export interface PublishingHosts {
  session(pr: PullRequest): Promise<HostSession | undefined>;
}

/** The hosts the review pipeline reads changes from. */
export interface ReadingHosts {
  reader(pr: PullRequest, owner: TokenOwner | undefined): Promise<ChangeReader>;
}

/** One host's part: what the registry asks of each sibling under `src/code-hosts/<host>/`. */
export interface CodeHost extends PublishingHosts, ReadingHosts {}

/**
 * Every code host the service speaks, chosen by the record's `provider`: the one place that knows
 * which hosts exist. A third host is a sibling folder and one entry here.
 */
export class CodeHosts implements CodeHost {
  constructor(private readonly hosts: Record<PullRequest['provider'], CodeHost>) {}

  session(pr: PullRequest): Promise<HostSession | undefined> {
    return this.hosts[pr.provider].session(pr);
  }

  reader(pr: PullRequest, owner: TokenOwner | undefined): Promise<ChangeReader> {
    return this.hosts[pr.provider].reader(pr, owner);
  }
}
