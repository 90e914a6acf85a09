import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../app.js';
import { loadConfig } from '../config/config.js';
import type { FromThread, ToThread } from './worker-thread.js';

/**
 * The worker thread of a `ROLE=all` process on PostgreSQL and Redis (see worker-thread.ts): the
 * worker role, built as a `ROLE=worker` process builds it, answering the main thread's scrapes and
 * closing with grace when told to. The main thread has validated the configuration and applied the
 * migrations before starting it.
 */
/**
 * The review thread's niceness: when the CPU is short, the scheduler serves the API's thread first
 * (a webhook waits milliseconds, a review a little longer, which nobody sees).
 */
const NICENESS = 10;

/**
 * Linux gives each thread an id of its own, and a niceness set on that id is the thread's alone
 * (`/proc/thread-self` names it). Elsewhere, or where it is refused, the thread keeps the process's.
 */
function lowerPriority(): void {
  try {
    setPriority(Number(readlinkSync('/proc/thread-self').split('/').at(-1)), NICENESS);
  } catch {
    // Not Linux: the same priority as the API, as a ROLE=all process had before.
  }
}

lowerPriority();
const port = parentPort!;
const startedAt = performance.now();
const built = buildApp({ config: { ...loadConfig(), role: 'worker' } });

const close = async (app: FastifyInstance) => {
  try {
    await app.close();
  } catch (error) {
    app.log.error({ err: error }, 'the worker thread did not close cleanly');
  }
  // Ends this thread only; the port would otherwise keep it alive.
  process.exit(0);
};

// Messages that come while the app is being built wait for it (a stop, then, closes it once built).
port.on('message', (message: ToThread) => {
  if (message.type === 'stop') {
    void built.then(close);
  } else if (message.type === 'metrics') {
    const families = built.then((app) => app.metrics.familiesForPeer()).catch(() => []);
    void families.then((answer) => port.postMessage({ type: 'metrics', id: message.id, families: answer } satisfies FromThread));
  }
});

const app = await built;
app.log.info({ readyInMs: Math.round(performance.now() - startedAt) }, 'worker thread ready');
port.postMessage({ type: 'ready' } satisfies FromThread);
