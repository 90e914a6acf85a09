import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { createTestDatabase, deleteRedisPrefix, uniqueName } from '../../test/helpers/backends.js';
import { startServer, type ServerProcess } from '../../test/helpers/server-process.js';

export type Backend = 'embedded' | 'servers';

/** The service's GITHUB_WEBHOOK_SECRET: what the scenarios sign their deliveries with. */
export const BENCH_WEBHOOK_SECRET = 'bench-secret';

/**
 * PostgreSQL and Redis for the "servers" runs: BENCH_* or TEST_* URLs, else the loopback defaults.
 * (Not test/helpers/backends.ts's `serverUrls`, which has no defaults: the tests run embedded then.)
 */
export const benchServerUrls = () => ({
  databaseUrl: process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
  redisUrl: process.env.BENCH_REDIS_URL || process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379',
});

/** BENCH_CPU_PROFILE=dir: each service process writes a V8 CPU profile there when it stops. */
const cpuProfileArgs = () => (process.env.BENCH_CPU_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROFILE}`] : []);

export interface ServiceProcess {
  url: string;
  /** Where the process writes its memory samples (`sampleMemory`; see memory-sampler.js). */
  memorySamplesFile: string;
  /** The servers run's PostgreSQL database (undefined embedded). */
  databaseUrl: string | undefined;
  dataDir: string;
  pid: number;
  /** The service's database, for checking what it stored (embedded: stops the server first). */
  inspect<T>(look: (database: DatabaseHandle) => Promise<T>): Promise<T>;
  /** Starts the server again on the same database (after `inspect` stopped an embedded one); its new URL. */
  restart(): Promise<string>;
  /** Stops the server and removes the database, the Redis keys and the data directory. */
  cleanup(): Promise<void>;
}

/**
 * The service as its own process, started as `npm start` starts it: the load generator must not
 * share the service's event loop, or both are measured at half speed. If it fails to start, what
 * was created for it is removed before the error is thrown.
 */
export async function startService(
  backend: Backend,
  env: Record<string, string> = {},
  { createDatabase = false, root, sampleMemory = false, nodeArgs = [] }: { createDatabase?: boolean; root?: string; sampleMemory?: boolean; nodeArgs?: string[] } = {},
): Promise<ServiceProcess> {
  const servers = backend === 'servers' ? benchServerUrls() : undefined;
  const redisKeyPrefix = `${uniqueName('bench')}:`;
  const dataDir = await mkdtemp(join(tmpdir(), 'bench-'));
  const memorySamplesFile = join(dataDir, 'memory.jsonl');
  const samplerArgs = sampleMemory ? ['--import', fileURLToPath(new URL('./memory-sampler.js', import.meta.url))] : [];
  let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  let server: ServerProcess | undefined;
  const stop = async () => {
    await server?.stop();
    server = undefined;
  };
  const cleanup = async () => {
    await stop();
    await database?.drop();
    if (servers !== undefined) await deleteRedisPrefix(servers.redisUrl, redisKeyPrefix);
    await rm(dataDir, { recursive: true, force: true });
  };

  const launch = async () => {
    server = await startServer(
      {
        NODE_ENV: 'production',
        ENCRYPTION_KEY: 'cd'.repeat(32),
        GITHUB_WEBHOOK_SECRET: BENCH_WEBHOOK_SECRET,
        DATA_DIR: dataDir,
        AUTH_RATE_LIMIT_PER_MIN: '1000000',
        ...(servers === undefined ? {} : { DATABASE_URL: database!.url, REDIS_URL: servers.redisUrl, REDIS_KEY_PREFIX: redisKeyPrefix }),
        ...(sampleMemory ? { BENCH_MEMORY_SAMPLES: memorySamplesFile } : {}),
        ...env,
      },
      // A first start compiles the sources (tsx) and migrates: on a loaded machine that outlasts 30 s.
      { logFile: join(dataDir, 'server.log'), nodeArgs: [...nodeArgs, ...cpuProfileArgs(), ...samplerArgs], root, timeoutMs: 180_000 },
    );
    return server.url!;
  };

  try {
    database = servers === undefined ? undefined : await createTestDatabase(servers.databaseUrl);
    // An embedded database created here, not in the service: on a busy machine PGlite's initdb can
    // outlast Fastify's 10 s plugin timeout, and a scenario that is not about start-up need not wait on it.
    if (createDatabase && database === undefined) await (await openDatabase({ url: undefined, dataDir })).close();
    await launch();
  } catch (error) {
    await cleanup().catch((cleanupError: unknown) => console.error('cleanup after a failed start failed:', cleanupError));
    throw error;
  }

  return {
    url: server!.url!,
    memorySamplesFile,
    databaseUrl: database?.url,
    dataDir,
    // A getter: a restart starts a new process.
    get pid() {
      return server!.pid;
    },
    inspect: async (look) => {
      if (database === undefined) await stop();
      const handle = await openDatabase({ url: database?.url, dataDir });
      try {
        return await look(handle);
      } finally {
        await handle.close();
      }
    },
    restart: async () => {
      await stop();
      return launch();
    },
    cleanup,
  };
}

/** Whether the servers run can happen here. */
export async function serversAvailable(): Promise<boolean> {
  const { databaseUrl, redisUrl } = benchServerUrls();
  try {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 1000 });
    await client.connect();
    await client.end();
    const { Redis } = await import('ioredis');
    const redis = new Redis(redisUrl, { lazyConnect: true, connectTimeout: 1000, maxRetriesPerRequest: 0, retryStrategy: () => null });
    redis.on('error', () => undefined);
    await redis.connect();
    redis.disconnect();
    return true;
  } catch {
    return false;
  }
}
