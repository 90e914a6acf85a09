/**
 * The review pipeline's queues (decisions.md §6), each with its payload type. Payloads carry ids,
 * not documents: the database holds the data, so a retried job always reads the latest state.
 */
export interface JobPayloads {
  /** A stored webhook delivery to sanitize. */
  unprocessedWebhookPayload: { deliveryId: string };
  /**
   * A draft's stored delivery whose repository configuration was not cached at intake: its own
   * queue, so that drafts never wait in front of real reviews (decisions.md, "Drafts at intake").
   */
  undecidedDraft: { deliveryId: string };
  /** A pull request ready for its content to be read. */
  sanitizedPrPayload: RunRequest;
  /** A pull request whose diff is stored, ready for the model. */
  extractedPrContent: RunRequest;
  /** A review run to publish in its pull request through the GitHub App (decisions.md §8). */
  completedReview: PublicationRequest;
  /** A command from a pull-request comment, or a re-requested check run (decisions.md §8). */
  appCommand: AppCommand;
  /** A completed run whose owner is told by email that the review is ready. */
  reviewEmail: ReviewRequest;
  /** A diff sent by the command line or a script, stored with its files (decisions.md §17). */
  diffReview: { diffReviewId: string };
}

/** `started`: the check run goes in progress; `finished`: the run's outcome is posted. */
export interface PublicationRequest extends ReviewRequest {
  phase: 'started' | 'finished';
}

/** What a command needs: where it was written, by whom, and what it says. */
export type AppCommand = GitHubCommand | GitLabCommand | BitbucketCommand;

/** A command in a GitHub pull request (through the App); jobs queued before GitLab existed carry no `provider`. */
export interface GitHubCommand {
  provider?: 'github';
  installationId: number;
  repositoryName: string;
  prNumber: number;
  /** The comment to acknowledge; absent for a re-requested check run. */
  commentId?: number;
  body: string;
  /** The commit a re-requested check run names. */
  headSha?: string;
  /** The GitHub user who wrote the comment or re-requested the check (their linked account is who ran it); absent in older jobs. */
  senderId?: number;
}

/** A note in a GitLab merge request (decisions.md §12): who may command is checked by the job, not at intake. */
export interface GitLabCommand {
  provider: 'gitlab';
  connectionId: string;
  iid: number;
  /** The note: acknowledged with `eyes`, answered once. */
  commentId: number;
  authorId: number;
  body: string;
  /** The discussion a reply belongs to (verdicts in a finding's discussion), when the payload says. */
  discussionId?: string | null;
  headSha?: undefined;
}

/**
 * A comment in a Bitbucket pull request (decisions.md §16): who may command is checked by the job
 * (the author's effective permission), not at intake.
 */
export interface BitbucketCommand {
  provider: 'bitbucket';
  connectionId: string;
  /** Bitbucket's pull-request id, unique within the connection's repository. */
  number: number;
  /** The comment: answers to it are replies in its thread. */
  commentId: number;
  /** The comment's author (`user.uuid`, with braces). */
  authorUuid: string;
  body: string;
  /** The comment it replies to (`parent.id`): a verdict names the finding of that thread. */
  parentId: number | null;
  headSha?: undefined;
}

/** A run of the review of a pull request; the run's mode and commit are on its review row. */
export interface ReviewRequest {
  pullRequestId: string;
  runId: string;
}

/**
 * A run on its way to the model. `memberId` is who triggered it, for an organization's usage
 * (decisions.md §15): the member who ran the re-run or the command, null when no member did; absent
 * for a webhook's run (then the author, when a member). In the payload, not on the review row: the
 * job is durable, retried with it, and a newer run supersedes it with its own.
 */
export interface RunRequest extends ReviewRequest {
  memberId?: string | null;
}

export type QueueName = keyof JobPayloads;

/** Attempts in all (first run included); attempt n waits backoffMs * 2^(n-2) after failure n-1. */
export interface RetryPolicy {
  attempts: number;
  backoffMs: number;
}
export type RetryPolicies = Record<QueueName, RetryPolicy>;

export const DEFAULT_RETRY_POLICIES: RetryPolicies = {
  unprocessedWebhookPayload: { attempts: 5, backoffMs: 1_000 },
  undecidedDraft: { attempts: 5, backoffMs: 2_000 },
  sanitizedPrPayload: { attempts: 5, backoffMs: 2_000 },
  extractedPrContent: { attempts: 4, backoffMs: 5_000 },
  completedReview: { attempts: 6, backoffMs: 2_000 },
  appCommand: { attempts: 4, backoffMs: 2_000 },
  reviewEmail: { attempts: 4, backoffMs: 5_000 },
  diffReview: { attempts: 3, backoffMs: 5_000 },
};

/** The wait before the next attempt: exponential, or longer when the failure asked for it (RetryLaterError). */
export const backoffDelay = (policy: RetryPolicy, attemptsMade: number, error?: unknown) =>
  Math.max(policy.backoffMs * 2 ** (attemptsMade - 1), error instanceof RetryLaterError ? error.delayMs : 0);

export interface Job<N extends QueueName> {
  id: string;
  name: N;
  payload: JobPayloads[N];
  /** 1 on the first run. */
  attempt: number;
  maxAttempts: number;
}

export interface AddOptions {
  /** Deduplicates: a job whose id is still queued, running or failed is not added again. */
  jobId?: string;
  delayMs?: number;
}

/** One job of an `addMany` batch. */
export interface NewJob<N extends QueueName> {
  payload: JobPayloads[N];
  options?: AddOptions;
}

export interface ProcessOptions<N extends QueueName> {
  concurrency?: number;
  /** Called once when a job has failed for good (retries spent or an UnrecoverableJobError). */
  onFailed?: (job: Job<N>, error: Error) => Promise<void> | void;
}

export interface FailedJob {
  id: string;
  name: QueueName;
  payload: unknown;
  attemptsMade: number;
  error: string;
  failedAt: Date;
}

export interface QueueCounts {
  waiting: number;
  active: number;
  failed: number;
}

export interface JobQueue {
  readonly kind: 'postgres' | 'bullmq';
  add<N extends QueueName>(name: N, payload: JobPayloads[N], options?: AddOptions): Promise<void>;
  /** Adds the jobs together, in one round trip: all of them, or (on an error) none. */
  addMany<N extends QueueName>(name: N, jobs: Array<NewJob<N>>): Promise<void>;
  /** Starts consuming `name` in this process. */
  process<N extends QueueName>(name: N, handler: (job: Job<N>) => Promise<void>, options?: ProcessOptions<N>): void;
  failed(name: QueueName, limit?: number): Promise<FailedJob[]>;
  counts(name: QueueName): Promise<QueueCounts>;
  ping(): Promise<void>;
  /** Stops taking jobs and lets running ones finish; those still running after the grace period go back to the queue. */
  close(): Promise<void>;
}

/** Thrown by a handler when retrying cannot help (the job fails at once). */
export class UnrecoverableJobError extends Error {
  override name = 'UnrecoverableJobError';
}

/** Thrown by a handler that must wait at least `delayMs` before its next attempt (a rate limit); it counts as an attempt. */
export class RetryLaterError extends Error {
  override name = 'RetryLaterError';
  constructor(
    message: string,
    readonly delayMs: number,
  ) {
    super(message);
  }
}

export const errorMessage = (error: unknown) => (error instanceof Error ? error.message : String(error));
