import { buildApp } from './app.js';
import { ConfigError } from './config/config-error.js';
import { loadConfig, type AppConfig } from './config/config.js';
import { WorkerThread, workersInThread } from './workers/worker-thread.js';

const SHUTDOWN_TIMEOUT_MS = 30_000;

/**
 * Entry point: validates configuration, builds the service for this ROLE, listens (API roles) and
 * shuts down with grace on SIGTERM/SIGINT: no new requests, in-flight requests and jobs finish or
 * go back to the queue, then connections close.
 */
async function main() {
  let config: AppConfig;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }

  const startedAt = performance.now();
  let app: Awaited<ReturnType<typeof buildApp>>;
  // ROLE=all on PostgreSQL + Redis: this thread serves the API, a thread of its own runs the workers,
  // started first so that both start side by side (migrations are applied once, under a lock).
  const workerThread = workersInThread(config) ? new WorkerThread() : undefined;
  const threadReady = workerThread?.start();
  // Awaited once the app is built; a thread failing before that must not count as unhandled.
  threadReady?.catch(() => undefined);
  try {
    app = await buildApp({ config: workerThread ? { ...config, role: 'api' } : config });
    workerThread?.logTo(app.log.child({ component: 'worker-thread' }));
    if (workerThread !== undefined) app.metrics.addPeer(() => workerThread.metrics());
    await threadReady;
  } catch (error) {
    // A start that cannot succeed says why in one line (a wrong key, a database that refused).
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }

  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) {
      app.log.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    closing = true;
    app.log.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      app.log.error('shutdown timed out');
      process.exit(1);
    }, SHUTDOWN_TIMEOUT_MS).unref();
    Promise.all([app.close(), workerThread?.stop()]).then(
      () => {
        clearTimeout(timer);
        process.exit(0);
      },
      (error: unknown) => {
        app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));

  if (config.role !== 'worker') await app.listen({ port: config.port, host: config.host });
  app.log.info({ role: config.role, workers: workerThread ? 'thread' : config.role === 'api' ? 'none' : 'main', readyInMs: Math.round(performance.now() - startedAt) }, 'ready');
}

await main();
