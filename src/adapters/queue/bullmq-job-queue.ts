import { Queue, UnrecoverableError, Worker, type Job as BullJob } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from '../../lib/logger.js';
import { closeRedis, createRedisConnection } from '../redis-connection.js';
import {
  DEFAULT_RETRY_POLICIES,
  UnrecoverableJobError,
  backoffDelay,
  type AddOptions,
  type FailedJob,
  type Job,
  type JobPayloads,
  type JobQueue,
  type NewJob,
  type ProcessOptions,
  type QueueCounts,
  type QueueName,
  type RetryPolicies,
} from './job-queue.js';

export interface BullMqJobQueueOptions {
  url: string;
  /** Namespace for every BullMQ key (BullMQ does not allow an ioredis keyPrefix). */
  prefix?: string;
  log: Logger;
  retry?: Partial<RetryPolicies>;
  /** How long a job stays locked without renewal before BullMQ treats its worker as dead. */
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  shutdownGraceMs?: number;
}

const PRODUCER_READY_TIMEOUT_MS = 2_000;
/** A custom backoff type: BullMQ hands it to the workers' backoffStrategy. */
const ASKED_OR_EXPONENTIAL = 'asked-or-exponential';
/** How long one step of shutting down may wait on Redis. */
const CLOSE_STEP_MS = 2_000;

/** True if `promise` settled within `ms`, false if it had not (it is left to settle on its own). */
async function settleWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(resolve, ms, false)));
  const settled = await Promise.race([promise.then(() => true, () => true), timeout]);
  clearTimeout(timer);
  return settled;
}

/** The queue at scale: BullMQ on Redis, shared by every worker process. */
export class BullMqJobQueue implements JobQueue {
  readonly kind = 'bullmq';
  private readonly retry: RetryPolicies;
  private readonly prefix: string;
  /** Producers fail fast when Redis is down, so callers can fall back instead of hanging. */
  private readonly producer: Redis;
  private readonly queues = new Map<QueueName, Queue>();
  /** Each worker with the handler runs it has in flight, so close() can wait for them with a time limit. */
  private readonly workers: { worker: Worker; running: Set<Promise<void>> }[] = [];
  private readonly workerConnections: Redis[] = [];

  constructor(private readonly options: BullMqJobQueueOptions) {
    this.retry = { ...DEFAULT_RETRY_POLICIES, ...options.retry };
    this.prefix = options.prefix ?? 'bull';
    this.producer = createRedisConnection({ url: options.url }, { enableOfflineQueue: false });
  }

  add<N extends QueueName>(name: N, payload: JobPayloads[N], options: AddOptions = {}): Promise<void> {
    return this.addMany(name, [{ payload, options }]);
  }

  async addMany<N extends QueueName>(name: N, jobs: Array<NewJob<N>>): Promise<void> {
    if (jobs.length === 0) return;
    const policy = this.retry[name];
    await this.producerReady();
    // One MULTI: one round trip for the batch, and all of it or none.
    await this.queue(name).addBulk(
      jobs.map(({ payload, options = {} }) => ({
        name,
        data: payload,
        opts: {
          // BullMQ rejects custom ids that look like integers or contain ':'; the interface takes any string.
          jobId: options.jobId === undefined ? undefined : `key-${encodeURIComponent(options.jobId)}`,
          delay: options.delayMs,
          attempts: policy.attempts,
          // Exponential, unless the failure asked for a longer wait (the workers' backoffStrategy).
          backoff: { type: ASKED_OR_EXPONENTIAL, delay: policy.backoffMs },
          removeOnComplete: true,
          removeOnFail: false,
        },
      })),
    );
  }

  process<N extends QueueName>(name: N, handler: (job: Job<N>) => Promise<void>, options: ProcessOptions<N> = {}): void {
    // Workers block on Redis and must retry for ever (BullMQ requires maxRetriesPerRequest: null).
    const connection = createRedisConnection({ url: this.options.url }, { maxRetriesPerRequest: null });
    this.workerConnections.push(connection);
    const log = this.options.log.child({ queue: name });
    const running = new Set<Promise<void>>();
    const worker = new Worker(
      name,
      async (bullJob: BullJob) => {
        const run = handler(toJob(name, bullJob));
        running.add(run);
        try {
          await run;
        } catch (error) {
          if (error instanceof UnrecoverableJobError) throw new UnrecoverableError(error.message);
          throw error;
        } finally {
          running.delete(run);
        }
      },
      {
        connection,
        prefix: this.prefix,
        concurrency: Math.max(1, options.concurrency ?? 1),
        lockDuration: this.options.lockDurationMs ?? 30_000,
        stalledInterval: this.options.stalledIntervalMs ?? 30_000,
        settings: {
          backoffStrategy: (attemptsMade, _type, error, bullJob) =>
            backoffDelay({ attempts: bullJob?.opts.attempts ?? 1, backoffMs: bullJob?.opts.backoff && typeof bullJob.opts.backoff === 'object' ? (bullJob.opts.backoff.delay ?? 0) : 0 }, attemptsMade, error),
        },
      },
    );
    worker.on('error', (error) => log.warn({ err: error }, 'worker error'));
    worker.on('failed', (bullJob, error) => {
      if (bullJob === undefined) return;
      void (async () => {
        // 'failed' also fires for attempts that will be retried; only a job in the failed set is done for.
        if ((await bullJob.getState()) !== 'failed') {
          log.warn({ jobId: bullJob.id, attempt: bullJob.attemptsMade, err: error }, 'job failed; will retry');
          return;
        }
        log.error({ jobId: bullJob.id, attempt: bullJob.attemptsMade, err: error }, 'job failed for good');
        // BullMQ has already counted the failed attempt: it was attempt `attemptsMade`, not the next one.
        await options.onFailed?.({ ...toJob(name, bullJob), attempt: bullJob.attemptsMade }, error);
      })().catch((hookError: unknown) => log.error({ err: hookError }, 'onFailed hook threw'));
    });
    this.workers.push({ worker, running });
  }

  async failed(name: QueueName, limit = 50): Promise<FailedJob[]> {
    await this.producerReady();
    const failed = await this.queue(name).getFailed(0, limit - 1);
    return failed.map((job) => ({
      id: String(job.id),
      name,
      payload: job.data as unknown,
      attemptsMade: job.attemptsMade,
      error: job.failedReason,
      failedAt: new Date(job.finishedOn ?? job.timestamp),
    }));
  }

  async counts(name: QueueName): Promise<QueueCounts> {
    await this.producerReady();
    const counts = await this.queue(name).getJobCounts('waiting', 'delayed', 'prioritized', 'active', 'failed');
    return {
      waiting: (counts.waiting ?? 0) + (counts.delayed ?? 0) + (counts.prioritized ?? 0),
      active: counts.active ?? 0,
      failed: counts.failed ?? 0,
    };
  }

  async ping(): Promise<void> {
    await this.producerReady();
    await this.producer.ping();
  }

  async close(): Promise<void> {
    const grace = this.options.shutdownGraceMs ?? 10_000;
    await Promise.all(
      this.workers.map(async ({ worker, running }) => {
        // Not close() then close(true) after the grace period: BullMQ answers a second close() with the
        // pending first one, so the forced close never happened. Stop taking jobs, wait, then close once.
        // With Redis down, BullMQ's own pause and close wait for a connection that never comes.
        await settleWithin(worker.pause(true), CLOSE_STEP_MS);
        const finished = await settleWithin(Promise.allSettled(running), grace);
        // Jobs still running keep their lock until it expires; then the stalled check requeues them.
        await settleWithin(worker.close(!finished), CLOSE_STEP_MS);
      }),
    );
    await Promise.all([...this.queues.values()].map((queue) => settleWithin(queue.close(), CLOSE_STEP_MS)));
    await Promise.all([this.producer, ...this.workerConnections].map(closeRedis));
    this.workers.length = 0;
    this.queues.clear();
  }

  /**
   * Waits for a connection attempt under way (as right after start-up), but fails fast while Redis is
   * down. Without the offline queue a command sent while connecting fails, and a Queue created then
   * is broken for good: BullMQ keeps the failed start-up of its connection and rejects every call.
   */
  private async producerReady(): Promise<void> {
    const producer = this.producer;
    if (producer.status === 'ready') return;
    if (producer.status !== 'connecting' && producer.status !== 'connect') throw new Error(`Redis is not reachable (${producer.status})`);
    await new Promise<void>((resolve, reject) => {
      const settle = (error?: Error) => {
        clearTimeout(timer);
        producer.off('ready', onReady);
        producer.off('close', onClose);
        if (error === undefined) resolve();
        else reject(error);
      };
      const onReady = () => settle();
      const onClose = () => settle(new Error('Redis is not reachable'));
      const timer = setTimeout(onClose, PRODUCER_READY_TIMEOUT_MS);
      producer.once('ready', onReady);
      producer.once('close', onClose);
    });
  }

  private queue(name: QueueName): Queue {
    let queue = this.queues.get(name);
    if (queue === undefined) {
      queue = new Queue(name, { connection: this.producer, prefix: this.prefix, skipWaitingForReady: true });
      queue.on('error', (error) => this.options.log.warn({ err: error, queue: name }, 'queue error'));
      this.queues.set(name, queue);
    }
    return queue;
  }
}

function toJob<N extends QueueName>(name: N, job: BullJob): Job<N> {
  return {
    id: String(job.id),
    name,
    payload: job.data as JobPayloads[N],
    attempt: job.attemptsMade + 1,
    maxAttempts: job.opts.attempts ?? 1,
  };
}
