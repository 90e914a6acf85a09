import { and, count, desc, eq, sql } from 'drizzle-orm';
import { queryRows, type Database } from '../../db/database.js';
import { jobs } from '../../db/schema/index.js';
import type { Logger } from '../../lib/logger.js';
import {
  DEFAULT_RETRY_POLICIES,
  UnrecoverableJobError,
  backoffDelay,
  errorMessage,
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

export interface PostgresJobQueueOptions {
  db: Database;
  log: Logger;
  retry?: Partial<RetryPolicies>;
  /** How often an idle worker looks for new jobs added by other processes. */
  pollIntervalMs?: number;
  /** How long a claimed job stays locked without a heartbeat before another worker may run it. */
  leaseMs?: number;
  shutdownGraceMs?: number;
}

interface ClaimedRow {
  id: number;
  payload: unknown;
  attempts_made: number;
  max_attempts: number;
  backoff_ms: number;
}

/**
 * The embedded queue: jobs are rows, so they survive a restart and can be added in the same
 * transaction as the data they refer to. Workers claim rows with `FOR UPDATE SKIP LOCKED` under a
 * lease that a heartbeat renews; a worker that dies stops renewing and its jobs run again.
 */
export class PostgresJobQueue implements JobQueue {
  readonly kind = 'postgres';
  private readonly retry: RetryPolicies;
  private readonly workers: PostgresWorker<QueueName>[] = [];
  private readonly pollIntervalMs: number;
  private readonly leaseMs: number;
  private readonly shutdownGraceMs: number;

  constructor(private readonly options: PostgresJobQueueOptions) {
    this.retry = { ...DEFAULT_RETRY_POLICIES, ...options.retry };
    this.pollIntervalMs = options.pollIntervalMs ?? 250;
    this.leaseMs = options.leaseMs ?? 30_000;
    this.shutdownGraceMs = options.shutdownGraceMs ?? 10_000;
  }

  add<N extends QueueName>(name: N, payload: JobPayloads[N], options: AddOptions = {}): Promise<void> {
    return this.addMany(name, [{ payload, options }]);
  }

  async addMany<N extends QueueName>(name: N, newJobs: Array<NewJob<N>>): Promise<void> {
    if (newJobs.length === 0) return;
    const policy = this.retry[name];
    await this.options.db
      .insert(jobs)
      .values(
        newJobs.map(({ payload, options = {} }) => ({
          queue: name,
          jobKey: options.jobId ?? null,
          payload,
          maxAttempts: policy.attempts,
          backoffMs: policy.backoffMs,
          runAt: new Date(Date.now() + (options.delayMs ?? 0)),
        })),
      )
      .onConflictDoNothing();
    for (const worker of this.workers) if (worker.name === name) worker.wake();
  }

  process<N extends QueueName>(name: N, handler: (job: Job<N>) => Promise<void>, options: ProcessOptions<N> = {}): void {
    const worker = new PostgresWorker<N>(name, handler, options, {
      db: this.options.db,
      log: this.options.log.child({ queue: name }),
      pollIntervalMs: this.pollIntervalMs,
      leaseMs: this.leaseMs,
      shutdownGraceMs: this.shutdownGraceMs,
    });
    this.workers.push(worker as unknown as PostgresWorker<QueueName>);
    worker.start();
  }

  async failed(name: QueueName, limit = 50): Promise<FailedJob[]> {
    const rows = await this.options.db
      .select()
      .from(jobs)
      .where(and(eq(jobs.queue, name), eq(jobs.status, 'failed')))
      .orderBy(desc(jobs.updatedAt))
      .limit(limit);
    return rows.map((row) => ({
      id: String(row.id),
      name,
      payload: row.payload,
      attemptsMade: row.attemptsMade,
      error: row.lastError ?? '',
      failedAt: row.updatedAt,
    }));
  }

  async counts(name: QueueName): Promise<QueueCounts> {
    const rows = await this.options.db
      .select({ status: jobs.status, total: count() })
      .from(jobs)
      .where(eq(jobs.queue, name))
      .groupBy(jobs.status);
    const counts: QueueCounts = { waiting: 0, active: 0, failed: 0 };
    for (const row of rows) counts[row.status] = row.total;
    return counts;
  }

  async ping(): Promise<void> {
    await this.options.db.execute(sql`select 1`);
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.stop()));
    this.workers.length = 0;
  }
}

interface WorkerContext {
  db: Database;
  log: Logger;
  pollIntervalMs: number;
  leaseMs: number;
  shutdownGraceMs: number;
}

class PostgresWorker<N extends QueueName> {
  private running = false;
  /** Set once shutdown handed the running jobs back: their late outcomes must not be written. */
  private abandoned = false;
  private readonly inFlight = new Map<number, { attemptsMade: number; done: Promise<void> }>();
  private wakeUp: (() => void) | undefined;
  private loopDone: Promise<void> = Promise.resolve();
  private heartbeat: NodeJS.Timeout | undefined;
  private readonly concurrency: number;

  constructor(
    readonly name: N,
    private readonly handler: (job: Job<N>) => Promise<void>,
    private readonly options: ProcessOptions<N>,
    private readonly context: WorkerContext,
  ) {
    this.concurrency = Math.max(1, options.concurrency ?? 1);
  }

  start() {
    this.running = true;
    this.heartbeat = setInterval(() => void this.renewLeases(), Math.max(50, this.context.leaseMs / 3)).unref();
    this.loopDone = this.loop();
  }

  wake() {
    this.wakeUp?.();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake();
    await this.loopDone;
    const pending = [...this.inFlight.values()].map((entry) => entry.done);
    const timedOut = await Promise.race([
      Promise.allSettled(pending).then(() => false),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(true), this.context.shutdownGraceMs).unref()),
    ]);
    clearInterval(this.heartbeat);
    if (timedOut) await this.handBack();
  }

  private async loop(): Promise<void> {
    while (this.running) {
      const free = this.concurrency - this.inFlight.size;
      let claimed: ClaimedRow[] = [];
      if (free > 0) {
        try {
          claimed = await this.claim(free);
        } catch (error) {
          this.context.log.warn({ err: error }, 'could not claim jobs; retrying');
        }
      }
      for (const row of claimed) this.run(row);
      if (claimed.length < free || this.inFlight.size >= this.concurrency) await this.idle();
    }
  }

  private idle(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, this.context.pollIntervalMs);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakeUp = done;
    });
  }

  /** Takes due jobs, and jobs whose worker stopped renewing its lease. */
  private claim(limit: number): Promise<ClaimedRow[]> {
    return queryRows<ClaimedRow>(
      this.context.db,
      sql`update ${jobs}
          set status = 'active', attempts_made = attempts_made + 1,
              locked_until = now() + ${this.context.leaseMs} * interval '1 millisecond', updated_at = now()
          where id in (
            select id from ${jobs}
            where queue = ${this.name}
              and ((status = 'waiting' and run_at <= now()) or (status = 'active' and locked_until < now()))
            order by run_at, id
            limit ${limit}
            for update skip locked)
          returning id, payload, attempts_made, max_attempts, backoff_ms`,
    );
  }

  private run(row: ClaimedRow) {
    const done = this.execute(row).finally(() => {
      this.inFlight.delete(row.id);
      this.wake();
    });
    this.inFlight.set(row.id, { attemptsMade: row.attempts_made, done });
  }

  private async execute(row: ClaimedRow): Promise<void> {
    const job: Job<N> = {
      id: String(row.id),
      name: this.name,
      payload: row.payload as JobPayloads[N],
      attempt: row.attempts_made,
      maxAttempts: row.max_attempts,
    };
    // The worker holding the final attempt died (its lease expired): no attempt is left to give.
    if (row.attempts_made > row.max_attempts) {
      await this.fail(row, job, new Error('the worker stopped while running the final attempt'));
      return;
    }
    try {
      await this.handler(job);
    } catch (error) {
      const cause = error instanceof Error ? error : new Error(String(error));
      if (cause instanceof UnrecoverableJobError || row.attempts_made >= row.max_attempts) await this.fail(row, job, cause);
      else await this.retryLater(row, cause);
      return;
    }
    await this.write(sql`delete from ${jobs} where id = ${row.id} and attempts_made = ${row.attempts_made}`);
  }

  private async retryLater(row: ClaimedRow, error: Error) {
    const delayMs = backoffDelay({ attempts: row.max_attempts, backoffMs: row.backoff_ms }, row.attempts_made, error);
    await this.write(sql`update ${jobs}
      set status = 'waiting', locked_until = null, last_error = ${error.message}, updated_at = now(),
          run_at = now() + ${delayMs} * interval '1 millisecond'
      where id = ${row.id} and attempts_made = ${row.attempts_made}`);
    this.context.log.warn({ jobId: row.id, attempt: row.attempts_made, err: error }, 'job failed; will retry');
  }

  private async fail(row: ClaimedRow, job: Job<N>, error: Error) {
    await this.write(sql`update ${jobs}
      set status = 'failed', locked_until = null, last_error = ${error.message}, updated_at = now()
      where id = ${row.id} and attempts_made = ${row.attempts_made}`);
    this.context.log.error({ jobId: row.id, attempt: row.attempts_made, err: error }, 'job failed for good');
    try {
      await this.options.onFailed?.(job, error);
    } catch (hookError) {
      this.context.log.error({ jobId: row.id, err: hookError }, 'onFailed hook threw');
    }
  }

  /**
   * Writes that end an attempt are fenced by `attempts_made`: if this worker lost its lease and
   * another claimed the job, the stale outcome matches no row.
   */
  private async write(statement: ReturnType<typeof sql>) {
    if (this.abandoned) return;
    try {
      await this.context.db.execute(statement);
    } catch (error) {
      // The lease will expire and the job run again: at least once, never lost.
      this.context.log.error({ err: error }, `could not record a job outcome: ${errorMessage(error)}`);
    }
  }

  private async renewLeases() {
    if (this.inFlight.size === 0) return;
    const ids = [...this.inFlight.keys()];
    await this.write(sql`update ${jobs}
      set locked_until = now() + ${this.context.leaseMs} * interval '1 millisecond'
      where id in (${sql.join(ids, sql`, `)}) and status = 'active'`);
  }

  /** Shutdown ran out of patience: what is still running goes back to the queue, its attempt not counted. */
  private async handBack() {
    for (const [id, entry] of this.inFlight) {
      await this.write(sql`update ${jobs}
        set status = 'waiting', locked_until = null, run_at = now(), attempts_made = attempts_made - 1, updated_at = now()
        where id = ${id} and attempts_made = ${entry.attemptsMade} and status = 'active'`);
    }
    this.abandoned = true;
  }
}
