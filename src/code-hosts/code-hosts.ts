import type { AppCommand } from '../adapters/queue/job-queue.js';
import type { PullRequest, User } from '../db/schema/index.js';
import type { HostKind } from '../domain/host-kinds.js';
import type { ChangeReader, CommandTarget, HostSession, TokenOwner } from './code-host.js';

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
  /** The change's description, from its stored webhook payload (each host's own shape); null when it has none. */
  description(pr: PullRequest): string | null;
  /**
   * Whether `user` is the change's author, by the link the host keeps between its users and
   * accounts: GitHub's is the id one signed in with; a host that keeps none says false.
   */
  authoredBy(pr: PullRequest, user: Pick<User, 'codehostUserId'>): boolean;
}

/** Why a change's publication cannot go on now, as `GET /review/information` shows it (decisions.md §8). */
export interface PublicationBlock {
  state: 'not_applicable' | 'failed';
  reason: string;
}

/** What publishing, the API and the chat ask of a host about one of its changes. */
export interface ChangeFacts {
  /** The host's name in messages: `GitHub`, `GitLab`. */
  readonly name: string;
  /** How the chat names a change: the repository, the host's own way of numbering, the title and the API's id. */
  changeLabel(pr: PullRequest): string;
  /**
   * Why the service never publishes this change's runs (no App installation it came through), or
   * null when it does. Synchronous: most reviews are not published, and knowing costs no statement.
   */
  unpublishedReason(pr: PullRequest): string | null;
  /** Why the service cannot publish on the change now (access lost, a disconnected or broken connection); undefined when it can. */
  publicationBlock(pr: PullRequest): Promise<PublicationBlock | undefined>;
}

/** Where commands given on the host are answered. */
export interface CommandHosts {
  /** The command's change on its host, or undefined when the service may no longer act there (or the author may not command it). */
  commandTarget(command: AppCommand): Promise<CommandTarget | undefined>;
}

/** One host's part: what the registry asks of each sibling under `src/code-hosts/<host>/`. */
export interface CodeHost extends PublishingHosts, Omit<ReadingHosts, 'authoredBy'>, ChangeFacts, CommandHosts {
  /** Absent on a host that links none of its users to accounts: no account is then the author. */
  authoredBy?: ReadingHosts['authoredBy'];
}

/** A change's host, or a command's: jobs queued before the second host existed carry no `provider`, and were GitHub's. */
const kindOf = (record: { provider?: HostKind }): HostKind => record.provider ?? 'github';

/**
 * Every code host the service speaks, chosen by the record's `provider`: the registry builds it
 * with one entry per host, and nothing else tells hosts apart.
 */
export class CodeHosts implements PublishingHosts, ReadingHosts, CommandHosts {
  constructor(private readonly hosts: Record<HostKind, CodeHost>) {}

  /** The host a change came from. */
  of(pr: Pick<PullRequest, 'provider'>): CodeHost {
    return this.hosts[kindOf(pr)];
  }

  session(pr: PullRequest): Promise<HostSession | undefined> {
    return this.of(pr).session(pr);
  }

  reader(pr: PullRequest, owner: TokenOwner | undefined): Promise<ChangeReader> {
    return this.of(pr).reader(pr, owner);
  }

  description(pr: PullRequest): string | null {
    return this.of(pr).description(pr);
  }

  authoredBy(pr: PullRequest, user: Pick<User, 'codehostUserId'>): boolean {
    return this.of(pr).authoredBy?.(pr, user) ?? false;
  }

  commandTarget(command: AppCommand): Promise<CommandTarget | undefined> {
    return this.hosts[kindOf(command)].commandTarget(command);
  }
}
