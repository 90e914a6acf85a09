import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { sourceUrl, startSourceWorker } from '../lib/source-worker.js';
import { outlineFile } from './outline-file.js';
import type { OutlineResult } from './outline-types.js';
import type { OutlineReply, OutlineRequest } from './outline-worker.js';

const WORKER_MAIN = sourceUrl('./outline-worker', import.meta.url);

interface PoolWorker {
  worker: Worker;
  pending: Map<number, { resolve: (reply: OutlineReply) => void; reject: (error: Error) => void }>;
}

/**
 * Outlines files in worker threads (decisions.md §11), so tree-sitter's parse, a few milliseconds a
 * file, runs beside the review's other work instead of blocking the event loop. Each worker loads
 * the grammars it needs and outlines one file at a time with `outlineFile`'s limits (a pathological
 * file stops at its deadline there as here), so the outlines are the same as in process. A worker
 * that fails (it could not start, it crashed) gives its files back to be outlined in process, and
 * the pool is not used again.
 */
export class OutlinePool {
  private readonly workers: PoolWorker[] = [];
  private nextId = 0;
  private broken = false;

  constructor(private readonly size: number) {}

  /** Workers outlining for the pool (0 once one has failed: files are then outlined in process). */
  get running(): number {
    return this.broken ? 0 : this.workers.length;
  }

  async outline(path: string, text: string): Promise<OutlineResult> {
    if (this.broken || this.size === 0) return outlineFile(path, text);
    let reply: OutlineReply;
    try {
      reply = await this.send(path, text);
    } catch {
      this.broken = true;
      return outlineFile(path, text);
    }
    // outlineFile threw in the worker: the same error as in process, not the pool's failure.
    if ('error' in reply) throw new Error(reply.error);
    return reply.result;
  }

  /**
   * Starts the workers ahead of the first file: each compiles the outline code first (a second or
   * so on a busy machine), which the first chunks of a review would otherwise wait for.
   */
  warm(): void {
    if (this.broken) return;
    while (this.workers.length < this.size) this.workers.push(this.start());
  }

  private send(path: string, text: string): Promise<OutlineReply> {
    const target = this.leastBusy();
    const id = this.nextId++;
    return new Promise<OutlineReply>((resolve, reject) => {
      target.pending.set(id, { resolve, reject });
      target.worker.postMessage({ id, path, text } satisfies OutlineRequest);
    });
  }

  private leastBusy(): PoolWorker {
    if (this.workers.length < this.size) {
      const started = this.start();
      this.workers.push(started);
      return started;
    }
    return this.workers.reduce((best, candidate) => (candidate.pending.size < best.pending.size ? candidate : best));
  }

  private start(): PoolWorker {
    const worker = startSourceWorker(WORKER_MAIN);
    // Idle workers do not keep the process alive.
    worker.unref();
    const entry: PoolWorker = { worker, pending: new Map() };
    const fail = (error: Error) => {
      this.broken = true;
      for (const { reject } of entry.pending.values()) reject(error);
      entry.pending.clear();
    };
    worker.on('message', (reply: OutlineReply) => {
      const waiting = entry.pending.get(reply.id);
      if (!waiting) return;
      entry.pending.delete(reply.id);
      waiting.resolve(reply);
    });
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the outline worker exited with ${code}`)));
    return entry;
  }
}

/** One pool per process: as many workers as cores less the one the event loop runs on (at least one, at most 4). */
export const outlinePool = new OutlinePool(Math.max(1, Math.min(4, availableParallelism() - 1)));
