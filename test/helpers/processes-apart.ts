import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, deleteRedisPrefix, uniqueName } from './backends.js';
import { startServer, type ServerProcess } from './server-process.js';

export interface ProcessesApart {
  api: ServerProcess;
  worker: ServerProcess;
  dataDir: string;
  /** The Redis key prefix both processes share (unique to the test). */
  prefix: string;
  stop(): Promise<void>;
}

/**
 * A new PostgreSQL database and a Redis namespace of the test's own (the run's TEST_DATABASE_URL and
 * TEST_REDIS_URL), with the environment a service process on them needs, `env` added.
 */
async function serversOfTheirOwn(name: string, env: Record<string, string>) {
  const dataDir = await mkdtemp(join(tmpdir(), `${name}-`));
  const database = await createTestDatabase(process.env.TEST_DATABASE_URL!);
  const prefix = `${uniqueName(name.replaceAll('-', '_'))}:`;
  const shared = { DATA_DIR: dataDir, DATABASE_URL: database.url, REDIS_URL: process.env.TEST_REDIS_URL!, REDIS_KEY_PREFIX: prefix, ENCRYPTION_KEY: 'ef'.repeat(32), ...env };
  const remove = async () => {
    await database.drop();
    await deleteRedisPrefix(process.env.TEST_REDIS_URL!, prefix);
    await rm(dataDir, { recursive: true, force: true });
  };
  return { dataDir, prefix, shared, remove };
}

/** The service at scale: an API process and a worker process, apart, on servers of their own. */
export async function startProcessesApart(name: string, env: Record<string, string>, { timeoutMs }: { timeoutMs?: number } = {}): Promise<ProcessesApart> {
  const { dataDir, prefix, shared, remove } = await serversOfTheirOwn(name, env);
  const [api, worker] = await Promise.all([
    startServer({ ...shared, ROLE: 'api' }, { logFile: join(dataDir, 'api.log'), timeoutMs }),
    startServer({ ...shared, ROLE: 'worker' }, { logFile: join(dataDir, 'worker.log'), timeoutMs }),
  ]);
  return {
    api,
    worker,
    dataDir,
    prefix,
    stop: async () => {
      await api.stop();
      await worker.stop();
      await remove();
    },
  };
}

/** One `ROLE=all` process on servers of its own (its workers in a thread of their own). */
export async function startOneProcess(name: string, env: Record<string, string>): Promise<{ server: ServerProcess; stop(): Promise<void> }> {
  const { dataDir, shared, remove } = await serversOfTheirOwn(name, env);
  const server = await startServer({ ...shared, ROLE: 'all' }, { logFile: join(dataDir, 'server.log') });
  return {
    server,
    stop: async () => {
      await server.stop();
      await remove();
    },
  };
}
