import type { Worker } from 'node:worker_threads';
import type { MetricFamilies } from '../adapters/metrics/service-metrics.js';
import type { AppConfig } from '../config/config.js';
import type { Logger } from '../lib/logger.js';
import { sourceUrl, startSourceWorker } from '../lib/source-worker.js';

/** Between the process's main thread and its worker thread. */
export type ToThread = { type: 'stop' } | { type: 'metrics'; id: number };
export type FromThread = { type: 'ready' } | { type: 'metrics'; id: number; families: MetricFamilies };

const THREAD_MAIN = sourceUrl('./worker-thread-main', import.meta.url);
/** A thread that ends by itself is started again after this, doubling up to the maximum. */
const RESTART_MS = 1_000;
const MAX_RESTART_MS = 30_000;
/** A thread that does not answer a scrape is left out of it. */
const METRICS_TIMEOUT_MS = 2_000;

/**
 * `ROLE=all` on PostgreSQL and Redis runs the workers in a thread of their own: a review's CPU work
 * (preparing the diff, parsing the code, building prompts and records) then never holds the API's
 * event loop, and the API answers while reviews drain. The thread talks to the other side only
 * through PostgreSQL and Redis, exactly as a `ROLE=worker` process does. Embedded, PGlite lives in
 * the main thread's memory (and the in-process store and queue with it): the workers stay there.
 */
export function workersInThread(config: AppConfig): boolean {
  return config.role === 'all' && config.databaseUrl !== undefined && config.redisUrl !== undefined;
}

/**
 * The main thread's handle on the worker thread: starts it, starts it again if it ends by itself
 * (its interrupted jobs go back to the queue, as after a crashed worker process), asks it for its
 * metrics, and stops it with grace.
 */
export class WorkerThread {
  private worker: Worker | undefined;
  private stopping = false;
  private restartMs = RESTART_MS;
  private restartTimer: NodeJS.Timeout | undefined;
  private nextMetricsId = 0;
  private readonly pendingMetrics = new Map<number, (families: MetricFamilies) => void>();

  /** The app's logger, once there is one: a thread that fails before says why through `start()`. */
  private log: Logger | undefined;

  logTo(log: Logger): void {
    this.log = log;
  }

  /**
   * Starts the thread; resolves when it is ready to take jobs. A thread that ends before it was ever
   * ready rejects it (the process cannot run its workers); one that ends later is started again.
   */
  start(): Promise<void> {
    return new Promise((resolve, reject) => this.spawn(resolve, reject));
  }

  private spawn(ready?: () => void, failed?: (error: Error) => void): void {
    const worker = startSourceWorker(THREAD_MAIN);
    let started = false;
    let lastError: Error | undefined;
    this.worker = worker;
    worker.on('message', (message: FromThread) => {
      if (message.type === 'ready') {
        started = true;
        this.restartMs = RESTART_MS;
        ready?.();
      }
      if (message.type === 'metrics') this.pendingMetrics.get(message.id)?.(message.families);
    });
    worker.on('error', (error) => {
      lastError = error;
      this.log?.error({ err: error }, 'the worker thread failed');
    });
    worker.on('exit', (code) => {
      if (this.worker === worker) this.worker = undefined;
      for (const answer of this.pendingMetrics.values()) answer([]);
      this.pendingMetrics.clear();
      if (this.stopping) return;
      if (!started && failed !== undefined) return failed(lastError ?? new Error(`the worker thread ended with code ${code} before it was ready`));
      this.log?.error({ code, restartInMs: this.restartMs }, 'the worker thread ended: starting it again');
      this.restartTimer = setTimeout(() => this.spawn(), this.restartMs);
      this.restartMs = Math.min(this.restartMs * 2, MAX_RESTART_MS);
    });
  }

  /** The thread's metric families; none when it is not running or does not answer in time. */
  metrics(): Promise<MetricFamilies> {
    const worker = this.worker;
    if (worker === undefined) return Promise.resolve([]);
    const id = this.nextMetricsId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => answer([]), METRICS_TIMEOUT_MS);
      const answer = (families: MetricFamilies) => {
        clearTimeout(timer);
        this.pendingMetrics.delete(id);
        resolve(families);
      };
      this.pendingMetrics.set(id, answer);
      worker.postMessage({ type: 'metrics', id } satisfies ToThread);
    });
  }

  /** Asks the thread to finish its jobs and close; resolves when it has ended. */
  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.restartTimer);
    const worker = this.worker;
    if (worker === undefined) return;
    const ended = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage({ type: 'stop' } satisfies ToThread);
    await ended;
  }
}
