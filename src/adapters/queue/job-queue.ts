/**
 * The review pipeline's queues (decisions.md §6), each with its payload type. Payloads carry ids,
 * not documents: the database holds the data, so a retried job always reads the latest state.
 */
export interface JobPayloads {
  /** A stored webhook delivery to sanitize. */
  unprocessedWebhookPayload: { deliveryId: string };
  /** A pull request ready for its content to be read. */
  sanitizedPrPayload: ReviewRequest;
  /** A pull request whose diff is stored, ready for the model. */
  extractedPrContent: ReviewRequest;
}

/** A run of the review of a pull request; the run's mode and commit are on its review row. */
export interface ReviewRequest {
  pullRequestId: string;
  runId: string;
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
  sanitizedPrPayload: { attempts: 5, backoffMs: 2_000 },
  extractedPrContent: { attempts: 4, backoffMs: 5_000 },
};

export const backoffDelay = (policy: RetryPolicy, attemptsMade: number) => policy.backoffMs * 2 ** (attemptsMade - 1);

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

export const errorMessage = (error: unknown) => (error instanceof Error ? error.message : String(error));
