import type { BodyDialect } from '../domain/comment-dialect.js';
import { FileRefusedError, type FileReader } from '../domain/host-files.js';
import type { PullRequest, User } from '../db/schema/index.js';
import type { SnapshotSource } from '../code-context/snapshot/snapshot-source.js';
import type { PublishableFinding } from '../domain/findings.js';

/**
 * What the service needs from a code host, one small interface per concern (decisions.md §8, §12).
 * GitHub and GitLab are sibling implementations under `src/code-hosts/<host>/`; publishing, commands,
 * `.ai-review.yml` and the review engine are written once against these interfaces, so a third
 * host (Bitbucket, Azure DevOps) is a new folder, not a rewrite.
 */

/** The user a change is read for when no installation or connection covers it: their own linked token, if any. */
export type TokenOwner = Pick<User, 'id' | 'codehostToken' | 'codehostRefreshToken' | 'codehostTokenExpiresAt'>;

/** A comment (GitHub) or note (GitLab) as posted or read back. Ids are the host's numeric ids. */
export interface HostNote {
  id: number;
  body: string;
  url: string;
}

// --- Reading ---------------------------------------------------------------------------------

// A file at a ref, and a host's refusal of it: in `domain/host-files.ts`, where `.ai-review.yml`'s loader reads them too.
export { FileRefusedError, type FileReader };

/** A change's diffs as `git diff` text with git's headers. */
export interface ChangeDiffReader {
  /** The whole change (pull request, merge request) against its base. */
  changeDiff(): Promise<string>;
  /** What a push changed; null when the host cannot compare the two commits (force-pushed away). */
  pushDiff(from: string, to: string): Promise<string | null>;
  /**
   * The full 40-character hash of a commit the host's events name by a prefix (Bitbucket's 12
   * characters, decisions.md §16); hosts whose events carry full hashes have none.
   */
  fullCommitSha?(sha: string): Promise<string>;
}

/** Everything read from a change's repository, with the key its cached `.ai-review.yml` is stored under. */
export interface ChangeReader extends ChangeDiffReader, FileReader {
  readonly repositoryKey: string;
  /** The commit of the target branch `.ai-review.yml` is read at (never the head: a change cannot switch off its own review). */
  configRef(): Promise<string>;
  /** The repository's code at a commit, for the code context's snapshot cache (decisions.md §11), read with the same credentials as the diff. */
  snapshotSource(): SnapshotSource;
}

// --- Posting ---------------------------------------------------------------------------------

/** The `AI review` status of the reviewed commit: a GitHub check run, a GitLab commit status. */
export interface ReviewStatusReport {
  phase: 'running' | 'completed' | 'failed';
  /** Open CRITICAL and MAJOR findings (completed runs). */
  blocking: number;
  title: string;
  summary: string;
  /** The failure's reason (failed runs). */
  reason?: string;
  /** The review's page in the web app. */
  detailsUrl: string;
}

export interface StatusRef {
  id: number;
  url: string | null;
}

/** A finding recorded as posted whose thread is still open, gone from the latest review. */
export interface GoneFinding {
  findingId: string;
  /** The id of the note that opened the finding's thread. */
  commentId: number;
}

/** A finding's thread (review thread, diff discussion) as the host shows it. */
export interface FindingThread {
  /** The host's id of the thread (GitHub's GraphQL node id, GitLab's discussion id). */
  id: string;
  /** The note that opened the thread: the one recorded for its finding. */
  firstNoteId: number;
  resolved: boolean;
  /** Every note's body, the opening one first. */
  noteBodies: string[];
}

/**
 * The thread operations gone findings need; the rule that uses them (`publishing/resolve-gone.ts`)
 * is written once for every host.
 */
export interface ThreadResolver {
  findingThreads(): Promise<FindingThread[]>;
  resolveThread(thread: FindingThread): Promise<void>;
  replyInThread(thread: FindingThread, body: string): Promise<void>;
  /** Whether a failed resolve may be answered with a reply instead; false rethrows it (a rate limit, a refused token: the job's failure rules decide). */
  mayAnswerInstead(error: unknown): boolean;
}

/**
 * Everything publishing does on one change; the gone findings' threads through `ThreadResolver`.
 * One interface: every caller needs all of it, and a host implements it in one class.
 */
export interface ChangePublisher extends ThreadResolver {
  /** How the host's comments carry the hidden markers and folded parts: every body publishing and commands build uses it. */
  readonly dialect: BodyDialect;
  /** The `AI review` status: creates or updates the commit's status; `recorded` is the id stored for that commit, if any. */
  postStatus(sha: string, report: ReviewStatusReport, recorded: number | null): Promise<StatusRef>;

  // Inline findings: one thread (review comment, diff discussion) per finding on its lines.
  /**
   * The service's own finding threads already on the change, by finding id (read back from the host: a retry's only truth).
   * `toPost`: the findings the job will post unless they are there already; a host that must read more to place them
   * (GitLab: the merge request and its diff) reads it beside the read-back, not after it.
   */
  postedFindings(toPost?: readonly PublishableFinding[]): Promise<Map<string, HostNote>>;
  /** Posts the findings on their lines; the ones the host cannot place come back as `refused`. */
  postFindings(sha: string, findings: PublishableFinding[]): Promise<{ posted: Array<{ findingId: string; note: HostNote }>; refused: PublishableFinding[]; reviewUrl: string | null }>;
  /** Why a refused finding is listed in the summary instead. */
  readonly refusedReason: string;

  /** The one summary comment or note of a change, created once and edited in place. */
  upsertSummary(body: string): Promise<HostNote>;
  /** The `eyes` acknowledgement of a command. */
  acknowledge(noteId: number): Promise<void>;
  /** The service's own top-level comments or notes (answers to commands). */
  ownNotes(): Promise<HostNote[]>;
  /** A plain comment or note on the change: an answer to a command. */
  reply(body: string): Promise<void>;
}

/**
 * Access to one change on its host for one job: `run` gives the publisher (with the host's
 * credentials), `failure` turns the host's errors into what the queue should do with the job
 * (wait for a rate limit, give up on a refusal, retry the rest).
 */
export interface HostSession {
  run<T>(call: (publisher: ChangePublisher) => Promise<T>): Promise<T>;
  failure(error: unknown): Error;
}

/** Where a command was given: its change's session on the host, the name the service answers to, and its record here. */
export interface CommandTarget {
  session: HostSession;
  /** `@<mention> <question>` asks; the GitHub App's slug, the GitLab token user's username. */
  mention: string;
  pr: PullRequest | undefined;
  /** The finding whose thread the command's note replies in, for hosts whose verdict replies come as commands (GitLab). */
  findingOfReply?: () => Promise<string | undefined>;
  /**
   * The account linked to the command's author, null when none is: who ran it, for an organization's
   * usage (decisions.md §15). Only GitHub links its users to accounts (the id one signed in with);
   * absent on the other hosts.
   */
  authorAccount?: () => Promise<string | null>;
}
