import { availableParallelism } from 'node:os';
import type { Transferable, Worker } from 'node:worker_threads';
import { sourceUrl, startSourceWorker } from '../lib/source-worker.js';
import type { CodeWork, CodeWorkReply, CodeWorkRequest } from './code-worker.js';
import { outlineSource, type OutlineSource } from './outline-source.js';
import type { OutlineResult } from './outline-types.js';
import { ArchiveTooLargeError, unpackArchive, type UnpackLimits, type UnpackResult } from './snapshot/unpack-archive.js';

const WORKER_MAIN = sourceUrl('./code-worker', import.meta.url);

interface PoolWorker {
  worker: Worker;
  pending: Map<number, { resolve: (reply: CodeWorkReply) => void; reject: (error: Error) => void }>;
}

/**
 * The code context's heavy work in worker threads (decisions.md §11), beside the review's other work
 * instead of on its event loop: tree-sitter's parse of each file (a few milliseconds a file), and the
 * unpacking of a snapshot's archive (gunzip, tar, the pack's writes: a second of the review's
 * thread for a 2,000-file repository, while the review it was prefetched for prepared on it).
 * Outlines are made with `outlineFile`'s limits (a pathological file stops at its deadline there as
 * here), so they are the same as in process. A worker that fails (it could not start, it crashed)
 * fails what it held: its outlines are made in process, an archive it was unpacking is lost (its
 * stream went to the worker) and that snapshot's build fails as a download would; the pool is not
 * used again.
 */
export class CodeWorkers {
  private readonly workers: PoolWorker[] = [];
  private nextId = 0;
  private broken = false;

  constructor(private size: number) {}

  /**
   * Outlines in the calling thread from now on. For a short-lived process reading a few files (the
   * command line's `--local`): a worker's start, compiling the outline code again, costs more than
   * the work it would take off the thread.
   */
  inProcess(): void {
    if (this.workers.length === 0) this.size = 0;
  }

  /** Workers running for the pool (0 once one has failed: the work is then done in process). */
  get running(): number {
    return this.broken ? 0 : this.workers.length;
  }

  /**
   * A file's outline, from its text or from its place in a snapshot's pack: the worker then reads it
   * itself, and the file is not copied from thread to thread (posting 2,000 files' texts was 0.25 s of
   * a large pull request's event loop). Null when a packed file cannot be read.
   */
  async outline(path: string, source: OutlineSource): Promise<OutlineResult | null> {
    if (this.broken || this.size === 0) return outlineSource(path, source);
    let reply: CodeWorkReply;
    try {
      reply = await this.send({ kind: 'outline', path, source });
    } catch {
      return outlineSource(path, source);
    }
    return resultOf(reply) as OutlineResult | null;
  }

  /** `unpackArchive` in a worker; the archive's stream is handed over to it. */
  async unpack(archive: ReadableStream<Uint8Array>, pack: string, limits: UnpackLimits): Promise<UnpackResult> {
    if (this.broken || this.size === 0) return unpackArchive(archive, pack, limits);
    return resultOf(await this.send({ kind: 'unpack', archive, pack, limits }, [archive])) as UnpackResult;
  }

  /**
   * Starts the workers ahead of their first work: each compiles the outline code first (a second or
   * so on a busy machine), which the review's snapshot and first chunks would otherwise wait for.
   */
  warm(): void {
    if (this.broken) return;
    while (this.workers.length < this.size) this.workers.push(this.start());
  }

  private send(work: CodeWork, transfer: Transferable[] = []): Promise<CodeWorkReply> {
    const target = this.leastBusy();
    const id = this.nextId++;
    return new Promise<CodeWorkReply>((resolve, reject) => {
      // A worker with work keeps the process alive until it answers; an idle one does not.
      if (target.pending.size === 0) target.worker.ref();
      target.pending.set(id, { resolve, reject });
      target.worker.postMessage({ ...work, id } satisfies CodeWorkRequest, transfer);
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
    const entry: PoolWorker = { worker, pending: new Map() };
    const fail = (error: Error) => {
      this.broken = true;
      for (const { reject } of entry.pending.values()) reject(error);
      entry.pending.clear();
    };
    worker.on('message', (reply: CodeWorkReply) => {
      const waiting = entry.pending.get(reply.id);
      if (!waiting) return;
      entry.pending.delete(reply.id);
      if (entry.pending.size === 0) worker.unref();
      waiting.resolve(reply);
    });
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the code worker exited with ${code}`)));
    // Idle: it does not keep the process alive. After the listeners: a 'message' listener added
    // later refs the worker's port again (a script using the pool never exited).
    worker.unref();
    return entry;
  }
}

/** The reply's result; its error thrown as in process (the worker's failure, not the pool's). */
function resultOf(reply: CodeWorkReply): OutlineResult | null | UnpackResult {
  if (!('error' in reply)) return reply.result;
  if (reply.error.name === 'ArchiveTooLargeError') throw new ArchiveTooLargeError(reply.error.message);
  throw new Error(reply.error.message);
}

/** One pool per process: as many workers as cores less the one the event loop runs on (at least one, at most 4). */
export const codeWorkers = new CodeWorkers(Math.max(1, Math.min(4, availableParallelism() - 1)));
