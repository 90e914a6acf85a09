import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { BullMqJobQueue } from '../../src/adapters/queue/bullmq-job-queue.js';
import {
  DEFAULT_RETRY_POLICIES,
  RetryLaterError,
  UnrecoverableJobError,
  type Job,
  type JobQueue,
  type QueueCounts,
  type RetryPolicies,
  type ReviewRequest,
} from '../../src/adapters/queue/job-queue.js';
import { PostgresJobQueue } from '../../src/adapters/queue/postgres-job-queue.js';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { createTestDatabase, deleteRedisPrefix, pgliteTemplate, serverUrls, uniqueName } from '../helpers/backends.js';

const projectRoot = fileURLToPath(new URL('../..', import.meta.url));
const crashingWorker = fileURLToPath(new URL('../fixtures/crashing-queue-worker.ts', import.meta.url));
const log = pino({ level: 'silent' });

interface QueueTuning {
  retry?: Partial<RetryPolicies>;
  shutdownGraceMs?: number;
}

/** A queue instance the parent opened around a crashed child, with whatever it had to open for it. */
interface OpenedQueue {
  queue: JobQueue;
  close(): Promise<void>;
}

interface CrashTarget {
  /** Environment for test/fixtures/crashing-queue-worker.ts to reach the same backend. */
  childEnv: Record<string, string>;
  /** A new queue instance on that backend; open only while no child holds it (PGlite is single-process). */
  open(): Promise<OpenedQueue>;
  dispose(): Promise<void>;
}

interface QueueBackend {
  /** Gives the next test an empty namespace. */
  reset(): Promise<void>;
  /** A new queue instance on the current namespace: instances share jobs as separate processes would. */
  open(tuning?: QueueTuning): JobQueue;
  crashTarget(): Promise<CrashTarget>;
  dispose(): Promise<void>;
}

interface QueueImplementation {
  name: string;
  setup: () => Promise<QueueBackend>;
}

// Short enough that tests need not wait long for a dead worker's job.
const POSTGRES_TUNING = { pollIntervalMs: 20, leaseMs: 500, shutdownGraceMs: 2_000 };
const BULLMQ_TUNING = { lockDurationMs: 1_000, stalledIntervalMs: 1_000, shutdownGraceMs: 2_000 };

function postgresBackend(handle: DatabaseHandle, crashTarget: () => Promise<CrashTarget>, dispose: () => Promise<void>): QueueBackend {
  return {
    reset: async () => {
      await handle.db.execute(sql`delete from jobs`);
    },
    open: (tuning = {}) => new PostgresJobQueue({ db: handle.db, log, ...POSTGRES_TUNING, ...tuning }),
    crashTarget,
    dispose,
  };
}

/** PGlite lives in one process; to share it with a child it has to be a data directory on disk. */
async function pgliteDirectoryTarget(): Promise<CrashTarget> {
  const dataDir = await mkdtemp(join(tmpdir(), 'job-queue-crash-'));
  // Seeding from the migrated template skips initdb (seconds).
  const seed = await PGlite.create({ dataDir: join(dataDir, 'pglite'), loadDataDir: await pgliteTemplate() });
  await seed.close();
  return {
    // An inherited DATABASE_URL would send the child to PostgreSQL instead.
    childEnv: { QUEUE_BACKEND: 'postgres', PGLITE_DATA_DIR: dataDir, DATABASE_URL: '' },
    open: async () => {
      const handle = await openDatabase({ url: undefined, dataDir });
      const queue = new PostgresJobQueue({ db: handle.db, log, ...POSTGRES_TUNING });
      return {
        queue,
        close: async () => {
          await queue.close();
          await handle.close();
        },
      };
    },
    dispose: () => rm(dataDir, { recursive: true, force: true }),
  };
}

const { databaseUrl, redisUrl } = serverUrls();

const implementations: QueueImplementation[] = [
  {
    name: 'PostgresJobQueue on PGlite',
    setup: async () => {
      const handle = await openDatabase({ url: undefined, dataDir: tmpdir(), pgliteTemplate: await pgliteTemplate() });
      return postgresBackend(handle, pgliteDirectoryTarget, () => handle.close());
    },
  },
];
if (databaseUrl !== undefined) {
  implementations.push({
    name: 'PostgresJobQueue on PostgreSQL',
    setup: async () => {
      const database = await createTestDatabase(databaseUrl);
      const handle = await openDatabase({ url: database.url, dataDir: '', poolSize: 4 });
      const target = async (): Promise<CrashTarget> => ({
        childEnv: { QUEUE_BACKEND: 'postgres', DATABASE_URL: database.url },
        open: async () => {
          const queue = new PostgresJobQueue({ db: handle.db, log, ...POSTGRES_TUNING });
          return { queue, close: () => queue.close() };
        },
        dispose: async () => undefined,
      });
      return postgresBackend(handle, target, async () => {
        await handle.close();
        await database.drop();
      });
    },
  });
}
if (redisUrl !== undefined) {
  implementations.push({
    name: 'BullMqJobQueue',
    setup: async () => {
      const suitePrefix = uniqueName('bullmq_contract');
      let prefix = suitePrefix;
      let namespaces = 0;
      const open = (tuning: QueueTuning = {}) => new BullMqJobQueue({ url: redisUrl, prefix, log, ...BULLMQ_TUNING, ...tuning });
      return {
        reset: async () => {
          prefix = `${suitePrefix}_${++namespaces}`;
        },
        open,
        crashTarget: async () => ({
          childEnv: { QUEUE_BACKEND: 'bullmq', REDIS_URL: redisUrl, BULLMQ_PREFIX: prefix },
          open: async () => {
            const queue = open();
            return { queue, close: () => queue.close() };
          },
          dispose: async () => undefined,
        }),
        dispose: () => deleteRedisPrefix(redisUrl, suitePrefix),
      };
    },
  });
}

/** vi.waitUntil every 10 ms, saying what it waited for when it times out. */
async function waitFor(condition: () => boolean | Promise<boolean>, { timeoutMs = 5_000, what = 'condition' } = {}): Promise<void> {
  await vi.waitUntil(condition, { timeout: timeoutMs, interval: 10 }).catch((error: unknown) => {
    throw error instanceof Error && error.message === 'Timed out in waitUntil!' ? new Error(`timed out after ${timeoutMs} ms waiting for ${what}`) : error;
  });
}

const EMPTY: QueueCounts = { waiting: 0, active: 0, failed: 0 };
const sameCounts = (a: QueueCounts, b: QueueCounts) => a.waiting === b.waiting && a.active === b.active && a.failed === b.failed;

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

const REVIEW: ReviewRequest = { pullRequestId: 'pr_0001', runId: '3f2a9c1e-5b7d-4c1e-9a2b-7d3f2a9c1e5b' };
const WEBHOOK = 'unprocessedWebhookPayload';

describe.each(implementations)('JobQueue contract: $name', ({ setup }) => {
  let backend: QueueBackend;
  let opened: JobQueue[] = [];
  const open = (tuning?: QueueTuning) => {
    const queue = backend.open(tuning);
    opened.push(queue);
    return queue;
  };
  const countsAre = async (queue: JobQueue, expected: QueueCounts) => sameCounts(await queue.counts(WEBHOOK), expected);

  beforeAll(async () => {
    backend = await setup();
  });
  afterAll(() => backend?.dispose());
  beforeEach(() => backend.reset());
  afterEach(async () => {
    await Promise.all(opened.map((queue) => queue.close()));
    opened = [];
  });

  it('delivers the typed payload once, on attempt 1, and forgets the job once it succeeded', async () => {
    const queue = open();
    const seen: Job<'sanitizedPrPayload'>[] = [];
    await queue.add('sanitizedPrPayload', REVIEW);
    queue.process('sanitizedPrPayload', async (job) => {
      seen.push(job);
    });

    await waitFor(() => seen.length === 1, { what: 'the job' });
    expect(seen[0]).toEqual({
      id: expect.any(String),
      name: 'sanitizedPrPayload',
      payload: REVIEW,
      attempt: 1,
      maxAttempts: DEFAULT_RETRY_POLICIES.sanitizedPrPayload.attempts,
    });
    await waitFor(async () => sameCounts(await queue.counts('sanitizedPrPayload'), EMPTY), { what: 'an empty queue' });
    expect(seen).toHaveLength(1);
  });

  it('keeps queues apart', async () => {
    const queue = open();
    const seen: unknown[] = [];
    await queue.add('extractedPrContent', REVIEW);
    await queue.add(WEBHOOK, { deliveryId: 'd-1' });
    queue.process(WEBHOOK, async (job) => {
      seen.push(job.payload);
    });

    await waitFor(() => countsAre(queue, EMPTY), { what: 'the webhook job' });
    expect(seen).toEqual([{ deliveryId: 'd-1' }]);
    expect(await queue.counts('extractedPrContent')).toEqual({ waiting: 1, active: 0, failed: 0 });
  });

  it('ignores a second add with the id of a queued job', async () => {
    const queue = open();
    await queue.add(WEBHOOK, { deliveryId: 'first' }, { jobId: 'delivery-a' });
    await queue.add(WEBHOOK, { deliveryId: 'duplicate' }, { jobId: 'delivery-a' });
    await queue.add(WEBHOOK, { deliveryId: 'other' }, { jobId: 'delivery-b' });
    expect(await queue.counts(WEBHOOK)).toEqual({ waiting: 2, active: 0, failed: 0 });

    const seen: string[] = [];
    queue.process(WEBHOOK, async (job) => {
      seen.push(job.payload.deliveryId);
    });
    await waitFor(() => seen.length === 2 && countsAre(queue, EMPTY), { what: 'both jobs' });
    expect(seen.sort()).toEqual(['first', 'other']);
  });

  it('adds a batch at once, each job once by its id, against the queue and within the batch', async () => {
    const queue = open();
    await queue.add(WEBHOOK, { deliveryId: 'queued' }, { jobId: 'delivery-queued' });
    await queue.addMany(WEBHOOK, [
      { payload: { deliveryId: 'again' }, options: { jobId: 'delivery-queued' } },
      { payload: { deliveryId: 'one' }, options: { jobId: 'delivery-1' } },
      { payload: { deliveryId: 'twice' }, options: { jobId: 'delivery-1' } },
      { payload: { deliveryId: 'no id' } },
    ]);
    await queue.addMany(WEBHOOK, []);
    expect(await queue.counts(WEBHOOK)).toEqual({ waiting: 3, active: 0, failed: 0 });

    const seen: string[] = [];
    queue.process(WEBHOOK, async (job) => {
      seen.push(job.payload.deliveryId);
    });
    await waitFor(() => seen.length === 3 && countsAre(queue, EMPTY), { what: 'the three jobs' });
    expect(seen.sort()).toEqual(['no id', 'one', 'queued']);
  });

  it('ignores an add with the id of a failed job, and accepts the id again once its job succeeded', async () => {
    const queue = open();
    const seen: string[] = [];
    queue.process(WEBHOOK, async (job) => {
      seen.push(job.payload.deliveryId);
      if (job.payload.deliveryId.startsWith('bad')) throw new UnrecoverableJobError('unusable');
    });
    await queue.add(WEBHOOK, { deliveryId: 'bad' }, { jobId: 'delivery-failed' });
    await queue.add(WEBHOOK, { deliveryId: 'good' }, { jobId: 'delivery-done' });
    await waitFor(() => countsAre(queue, { waiting: 0, active: 0, failed: 1 }), { what: 'one failed job' });

    await queue.add(WEBHOOK, { deliveryId: 'bad again' }, { jobId: 'delivery-failed' });
    await queue.add(WEBHOOK, { deliveryId: 'good again' }, { jobId: 'delivery-done' });
    await waitFor(() => seen.length === 3 && countsAre(queue, { waiting: 0, active: 0, failed: 1 }), { what: 'the re-added job' });
    expect(seen.sort()).toEqual(['bad', 'good', 'good again']);
  });

  it('takes any string as a job id', async () => {
    const queue = open();
    // Natural keys: a numeric delivery id, a pull request at a commit.
    const ids = ['12345', 'pr:42:3f2a9c1e', 'a/b c%d'];
    for (const id of ids) await queue.add(WEBHOOK, { deliveryId: id }, { jobId: id });
    for (const id of ids) await queue.add(WEBHOOK, { deliveryId: `${id} again` }, { jobId: id });
    expect(await queue.counts(WEBHOOK)).toEqual({ waiting: ids.length, active: 0, failed: 0 });

    const seen: string[] = [];
    queue.process(WEBHOOK, async (job) => void seen.push(job.payload.deliveryId));
    await waitFor(() => seen.length === ids.length && countsAre(queue, EMPTY), { what: 'every job' });
    expect(seen.sort()).toEqual([...ids].sort());
  });

  it('retries a failing job with growing backoff until it succeeds', async () => {
    const queue = open({ retry: { [WEBHOOK]: { attempts: 3, backoffMs: 100 } } });
    const runs: { attempt: number; maxAttempts: number; at: number }[] = [];
    const failures: unknown[] = [];
    queue.process(
      WEBHOOK,
      async (job) => {
        runs.push({ attempt: job.attempt, maxAttempts: job.maxAttempts, at: performance.now() });
        if (job.attempt < 3) throw new Error(`transient failure ${job.attempt}`);
      },
      { onFailed: (job) => void failures.push(job) },
    );
    await queue.add(WEBHOOK, { deliveryId: 'flaky' });

    await waitFor(() => runs.length === 3 && countsAre(queue, EMPTY), { what: 'three runs' });
    expect(runs.map((run) => [run.attempt, run.maxAttempts])).toEqual([
      [1, 3],
      [2, 3],
      [3, 3],
    ]);
    const [first, second] = [runs[1]!.at - runs[0]!.at, runs[2]!.at - runs[1]!.at];
    // backoffMs after the first failure, twice that after the second (a few ms of timestamp rounding allowed).
    // Only lower bounds: a delayed job may start late on a loaded machine (BullMQ promotes delayed jobs on a timer),
    // so the first wait can overshoot the second; the second's floor of twice the backoff is what shows the growth.
    expect(first).toBeGreaterThanOrEqual(95);
    expect(second).toBeGreaterThanOrEqual(195);
    expect(failures).toEqual([]);
    expect(await queue.failed(WEBHOOK)).toEqual([]);
  });

  it('waits as long as a failure asks (RetryLaterError), longer than the backoff, and counts the attempt', async () => {
    const queue = open({ retry: { [WEBHOOK]: { attempts: 3, backoffMs: 20 } } });
    const runs: { attempt: number; at: number }[] = [];
    queue.process(WEBHOOK, async (job) => {
      runs.push({ attempt: job.attempt, at: performance.now() });
      if (job.attempt === 1) throw new RetryLaterError('rate limited', 400);
    });
    await queue.add(WEBHOOK, { deliveryId: 'rate-limited' });
    await waitFor(() => runs.length === 2 && countsAre(queue, EMPTY), { what: 'two runs' });
    expect(runs.map((run) => run.attempt)).toEqual([1, 2]);
    expect(runs[1]!.at - runs[0]!.at).toBeGreaterThanOrEqual(395);
  });

  it('keeps a job whose retries are spent in failed(), and calls onFailed exactly once', async () => {
    const queue = open({ retry: { [WEBHOOK]: { attempts: 2, backoffMs: 20 } } });
    let runs = 0;
    const failures: { job: Job<typeof WEBHOOK>; error: Error }[] = [];
    queue.process(
      WEBHOOK,
      async (job) => {
        runs++;
        throw new Error(`boom on attempt ${job.attempt}`);
      },
      { onFailed: (job, error) => void failures.push({ job, error }) },
    );
    const before = Date.now();
    await queue.add(WEBHOOK, { deliveryId: 'doomed' });

    await waitFor(() => failures.length === 1, { what: 'onFailed' });
    // Long enough for a stray retry or a second onFailed to show up.
    await sleep(150);
    expect(runs).toBe(2);
    expect(failures).toHaveLength(1);
    expect(failures[0]!.job).toMatchObject({ name: WEBHOOK, payload: { deliveryId: 'doomed' }, attempt: 2, maxAttempts: 2 });
    expect(failures[0]!.error.message).toBe('boom on attempt 2');

    const failed = await queue.failed(WEBHOOK);
    expect(failed).toEqual([
      { id: failures[0]!.job.id, name: WEBHOOK, payload: { deliveryId: 'doomed' }, attemptsMade: 2, error: 'boom on attempt 2', failedAt: expect.any(Date) },
    ]);
    expect(failed[0]!.failedAt.getTime()).toBeGreaterThanOrEqual(before - 1_000);
    expect(failed[0]!.failedAt.getTime()).toBeLessThanOrEqual(Date.now() + 1_000);
    expect(await queue.counts(WEBHOOK)).toEqual({ waiting: 0, active: 0, failed: 1 });
  });

  it('fails a job at once on UnrecoverableJobError', async () => {
    const queue = open({ retry: { [WEBHOOK]: { attempts: 5, backoffMs: 20 } } });
    let runs = 0;
    const failures: { job: Job<typeof WEBHOOK>; error: Error }[] = [];
    queue.process(
      WEBHOOK,
      async () => {
        runs++;
        throw new UnrecoverableJobError('the delivery is not valid JSON');
      },
      { onFailed: (job, error) => void failures.push({ job, error }) },
    );
    await queue.add(WEBHOOK, { deliveryId: 'garbage' });

    await waitFor(() => failures.length === 1, { what: 'onFailed' });
    await sleep(100);
    expect(runs).toBe(1);
    expect(failures).toHaveLength(1);
    expect(failures[0]!.job).toMatchObject({ attempt: 1, maxAttempts: 5 });
    expect(failures[0]!.error.message).toBe('the delivery is not valid JSON');
    expect(await queue.failed(WEBHOOK)).toMatchObject([{ attemptsMade: 1, error: 'the delivery is not valid JSON' }]);
  });

  it('lists failed jobs newest first, up to the limit', async () => {
    const queue = open({ retry: { [WEBHOOK]: { attempts: 1, backoffMs: 20 } } });
    queue.process(WEBHOOK, async (job) => {
      // Apart by more than the millisecond the failure times are stored with.
      await sleep(5);
      throw new Error(`failed ${job.payload.deliveryId}`);
    });
    for (const id of ['a', 'b', 'c']) await queue.add(WEBHOOK, { deliveryId: id });
    await waitFor(() => countsAre(queue, { waiting: 0, active: 0, failed: 3 }), { what: 'three failures' });

    expect((await queue.failed(WEBHOOK, 2)).map((job) => job.error)).toEqual(['failed c', 'failed b']);
    expect(await queue.failed(WEBHOOK)).toHaveLength(3);
    expect(await queue.failed('sanitizedPrPayload')).toEqual([]);
  });

  it('keeps the queue going when onFailed throws', async () => {
    const queue = open({ retry: { [WEBHOOK]: { attempts: 1, backoffMs: 20 } } });
    const seen: string[] = [];
    queue.process(
      WEBHOOK,
      async (job) => {
        seen.push(job.payload.deliveryId);
        if (job.payload.deliveryId === 'bad') throw new Error('bad job');
      },
      {
        onFailed: () => {
          throw new Error('hook broke');
        },
      },
    );
    await queue.add(WEBHOOK, { deliveryId: 'bad' });
    await waitFor(() => countsAre(queue, { waiting: 0, active: 0, failed: 1 }), { what: 'the failure' });
    await queue.add(WEBHOOK, { deliveryId: 'good' });
    await waitFor(() => seen.includes('good') && countsAre(queue, { waiting: 0, active: 0, failed: 1 }), { what: 'the next job' });
  });

  it('counts waiting (delayed included), active and failed jobs', async () => {
    const queue = open({ retry: { [WEBHOOK]: { attempts: 1, backoffMs: 20 } } });
    expect(await queue.counts(WEBHOOK)).toEqual(EMPTY);
    await queue.add(WEBHOOK, { deliveryId: 'fails' });
    await queue.add(WEBHOOK, { deliveryId: 'succeeds' });
    await queue.add(WEBHOOK, { deliveryId: 'later' }, { delayMs: 60_000 });
    expect(await queue.counts(WEBHOOK)).toEqual({ waiting: 3, active: 0, failed: 0 });

    const release = deferred();
    queue.process(WEBHOOK, async (job) => {
      if (job.payload.deliveryId !== 'fails') return;
      await release.promise;
      throw new Error('failed on purpose');
    });
    await waitFor(() => countsAre(queue, { waiting: 2, active: 1, failed: 0 }), { what: 'one active job' });
    release.resolve();
    await waitFor(() => countsAre(queue, { waiting: 1, active: 0, failed: 1 }), { what: 'the final counts' });
  });

  it('runs up to `concurrency` jobs at once, never more', async () => {
    const queue = open();
    const concurrency = 3;
    let running = 0;
    let most = 0;
    let done = 0;
    queue.process(
      WEBHOOK,
      async () => {
        running++;
        most = Math.max(most, running);
        // Hold on until the queue has shown it can run `concurrency` jobs together (or give up).
        await waitFor(() => most >= concurrency, { timeoutMs: 2_000 }).catch(() => undefined);
        await sleep(20);
        running--;
        done++;
      },
      { concurrency },
    );
    for (let i = 0; i < 7; i++) await queue.add(WEBHOOK, { deliveryId: `parallel-${i}` });

    await waitFor(() => done === 7, { timeoutMs: 10_000, what: 'all jobs' });
    expect(most).toBe(concurrency);
  });

  it('runs a delayed job no sooner than its delay, without holding up others', async () => {
    const queue = open();
    const started = new Map<string, number>();
    queue.process(
      WEBHOOK,
      async (job) => {
        started.set(job.payload.deliveryId, Date.now());
      },
      { concurrency: 2 },
    );
    const added = Date.now();
    await queue.add(WEBHOOK, { deliveryId: 'delayed' }, { delayMs: 400 });
    await queue.add(WEBHOOK, { deliveryId: 'now' });

    await waitFor(() => started.size === 2, { what: 'both jobs' });
    expect(started.get('now')! - added).toBeLessThan(400);
    // The database stores times to the millisecond.
    expect(started.get('delayed')! - added).toBeGreaterThanOrEqual(398);
  });

  it('keeps jobs added by a closed instance for the next one', async () => {
    const producer = open();
    await producer.add(WEBHOOK, { deliveryId: 'durable-1' });
    await producer.add('sanitizedPrPayload', REVIEW, { jobId: 'review-1' });
    await producer.close();

    const consumer = open();
    const seen: unknown[] = [];
    consumer.process(WEBHOOK, async (job) => void seen.push(job.payload));
    consumer.process('sanitizedPrPayload', async (job) => void seen.push(job.payload));
    await waitFor(() => seen.length === 2, { what: 'the kept jobs' });
    expect(seen).toEqual(expect.arrayContaining([{ deliveryId: 'durable-1' }, REVIEW]));
  });

  it('on close, lets the running job finish and starts no other', async () => {
    const queue = open();
    let finished = false;
    const seen: string[] = [];
    queue.process(WEBHOOK, async (job) => {
      seen.push(job.payload.deliveryId);
      await sleep(300);
      finished = true;
    });
    await queue.add(WEBHOOK, { deliveryId: 'in-flight' });
    await queue.add(WEBHOOK, { deliveryId: 'next' });
    await waitFor(() => seen.length === 1, { what: 'the first job' });

    await queue.close();
    expect(finished).toBe(true);
    expect(seen).toEqual(['in-flight']);
    // The finished job is recorded as done, the other still waits.
    const after = open();
    expect(await after.counts(WEBHOOK)).toEqual({ waiting: 1, active: 0, failed: 0 });
  });

  it('on close, gives up on a job still running after the grace period and hands it back to the queue', async () => {
    const stuck = open({ shutdownGraceMs: 200 });
    const release = deferred();
    let runs = 0;
    stuck.process(WEBHOOK, async () => {
      runs++;
      await release.promise;
    });
    await stuck.add(WEBHOOK, { deliveryId: 'stuck' });
    await waitFor(() => runs === 1, { what: 'the job to start' });

    const closing = performance.now();
    await stuck.close();
    expect(performance.now() - closing).toBeLessThan(1_500);

    const next = open();
    const seen: Job<typeof WEBHOOK>[] = [];
    next.process(WEBHOOK, async (job) => void seen.push(job));
    try {
      await waitFor(() => seen.length === 1, { timeoutMs: 10_000, what: 'the job to run again' });
      expect(seen[0]!.payload).toEqual({ deliveryId: 'stuck' });
      await waitFor(() => countsAre(next, EMPTY), { what: 'an empty queue' });
    } finally {
      // The abandoned handler ends only now; what it reports must change nothing.
      release.resolve();
    }
    await sleep(50);
    expect(await next.counts(WEBHOOK)).toEqual(EMPTY);
    expect(seen).toHaveLength(1);
  });

  it('runs a job again after the process running it was killed', async () => {
    const target = await backend.crashTarget();
    try {
      const producer = await target.open();
      await producer.queue.add(WEBHOOK, { deliveryId: 'survives-a-crash' });
      await producer.close();

      const child = spawn(process.execPath, ['--import', 'tsx', crashingWorker], {
        cwd: projectRoot,
        env: { ...process.env, ...target.childEnv },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const exited = once(child, 'exit');
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      let started: Job<typeof WEBHOOK> | undefined;
      try {
        const lines = createInterface({ input: child.stdout });
        const firstLine = new Promise<string>((resolve, reject) => {
          lines.once('line', resolve);
          child.once('exit', (code) => reject(new Error(`the worker exited (${code}) before taking the job: ${stderr}`)));
        });
        started = (JSON.parse(await firstLine) as { started: Job<typeof WEBHOOK> }).started;
      } finally {
        child.kill('SIGKILL');
        await exited;
      }
      expect(started.payload).toEqual({ deliveryId: 'survives-a-crash' });

      const survivor = await target.open();
      try {
        // The dead worker's claim outlived it (for PGlite: the data directory recovered after the kill).
        expect(await survivor.queue.counts(WEBHOOK)).toEqual({ waiting: 0, active: 1, failed: 0 });
        const runs: Job<typeof WEBHOOK>[] = [];
        survivor.queue.process(WEBHOOK, async (job) => void runs.push(job));
        await waitFor(() => runs.length === 1, { timeoutMs: 10_000, what: 'the job to run again' });
        expect(runs[0]).toMatchObject({ id: started.id, payload: { deliveryId: 'survives-a-crash' } });
        await waitFor(() => countsAre(survivor.queue, EMPTY), { what: 'an empty queue' });
      } finally {
        await survivor.close();
      }
    } finally {
      await target.dispose();
    }
  });

  it('answers ping', async () => {
    await expect(open().ping()).resolves.toBeUndefined();
  });
});
