import type { SnapshotSource } from '../code-context/snapshot/snapshot-source.js';
import type { PublishableFinding } from '../publishing/stored-review.js';

/**
 * What the service needs from a code host, one small interface per concern (decisions.md §8, §12).
 * GitHub and GitLab are sibling implementations under `src/code-hosts/<host>/`; publishing, commands,
 * `.ai-review.yml` and the review engine are written once against these interfaces, so a third
 * host (Bitbucket, Azure DevOps) is a new folder, not a rewrite.
 */

export const CODE_HOST_PROVIDERS = ['github', 'gitlab'] as const;
export type CodeHostProvider = (typeof CODE_HOST_PROVIDERS)[number];

/** A comment (GitHub) or note (GitLab) as posted or read back. Ids are the host's numeric ids. */
export interface HostNote {
  id: number;
  body: string;
  url: string;
}

// --- Reading ---------------------------------------------------------------------------------

/** A change's diffs as `git diff` text with git's headers. */
export interface ChangeDiffReader {
  /** The whole change (pull request, merge request) against its base. */
  changeDiff(): Promise<string>;
  /** What a push changed; null when the host cannot compare the two commits (force-pushed away). */
  pushDiff(from: string, to: string): Promise<string | null>;
}

/**
 * A file at a ref; null when it does not exist there. A host refusing the read (no permission for
 * contents) throws `FileRefusedError`, so `.ai-review.yml` falls back to its defaults and says so.
 */
export interface FileReader {
  fileAt(path: string, ref: string): Promise<string | null>;
}

/** Everything read from a change's repository, with the key its cached `.ai-review.yml` is stored under. */
export interface ChangeReader extends ChangeDiffReader, FileReader {
  readonly repositoryKey: string;
  /** The commit of the target branch `.ai-review.yml` is read at (never the head: a change cannot switch off its own review). */
  configRef(): Promise<string>;
  /** The repository's code at a commit, for the code context's snapshot cache (decisions.md §11), read with the same credentials as the diff. */
  snapshotSource(): SnapshotSource;
}

export class FileRefusedError extends Error {
  override name = 'FileRefusedError';
  constructor(
    readonly status: number,
    readonly host: string,
  ) {
    super(`${host} answered ${status}`);
  }
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

export interface StatusPoster {
  /** Creates or updates the commit's status; `recorded` is the id stored for that commit, if any. */
  postStatus(sha: string, report: ReviewStatusReport, recorded: number | null): Promise<StatusRef>;
}

/** Inline findings: one thread (review comment, diff discussion) per finding on its lines. */
export interface FindingPoster {
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
}

export interface GoneFinding {
  findingId: string;
  /** The id of the note that opened the finding's thread. */
  commentId: number;
}

export interface ThreadResolver {
  /** Resolves (or, where the host refuses, answers) the threads of findings gone from the latest review; `resolved` records each. */
  resolveGone(gone: GoneFinding[], sha: string, resolved: (findingId: string) => Promise<void>): Promise<void>;
}

/** The one summary comment or note of a change, created once and edited in place. */
export interface SummaryPoster {
  upsertSummary(body: string): Promise<HostNote>;
}

/** The `eyes` acknowledgement of a command. */
export interface Reactions {
  acknowledge(noteId: number): Promise<void>;
}

/** Plain comments or notes on the change: answers to commands. */
export interface ConversationPoster {
  /** The service's own top-level comments or notes. */
  ownNotes(): Promise<HostNote[]>;
  reply(body: string): Promise<void>;
}

/** Everything publishing does on one change. */
export interface ChangePublisher extends StatusPoster, FindingPoster, ThreadResolver, SummaryPoster, Reactions, ConversationPoster {}

/**
 * Access to one change on its host for one job: `run` gives the publisher (with the host's
 * credentials), `failure` turns the host's errors into what the queue should do with the job
 * (wait for a rate limit, give up on a refusal, retry the rest).
 */
export interface HostSession {
  run<T>(call: (publisher: ChangePublisher) => Promise<T>): Promise<T>;
  failure(error: unknown): Error;
}

// --- Commands --------------------------------------------------------------------------------

/** Who may command the service on a change, and the name it answers to (`@name`). */
export interface CommandGate {
  /** The name `@<name> <question>` addresses. */
  readonly mention: string;
  /** Whether a note's author may give commands (a member with write access, not a bot, not the service itself). */
  mayCommand(author: { id: number; login?: string }): Promise<boolean>;
}
