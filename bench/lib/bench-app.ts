import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp, fastifyOptions } from '../../src/app.js';
import { loadConfig, type AppConfig } from '../../src/config/config.js';
import { createTestDatabase, deleteRedisPrefix, uniqueName } from '../../test/helpers/backends.js';

export type Backend = 'embedded' | 'servers';

/** PostgreSQL and Redis for the "servers" runs: BENCH_* or TEST_* URLs, else the local defaults. */
export const serverUrls = () => ({
  databaseUrl: process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  redisUrl: process.env.BENCH_REDIS_URL ?? process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
});

export interface BenchApp {
  app: FastifyInstance;
  config: AppConfig;
  url: string;
  dataDir: string;
  close(): Promise<void>;
}

/** The whole service listening on a free port, on one backend, logging only warnings. */
export async function startBenchApp(backend: Backend, env: Record<string, string> = {}): Promise<BenchApp> {
  const dataDir = await mkdtemp(join(tmpdir(), 'bench-'));
  const servers = backend === 'servers' ? serverUrls() : undefined;
  const database = servers === undefined ? undefined : await createTestDatabase(servers.databaseUrl);
  const redisKeyPrefix = `${uniqueName('bench')}:`;
  const config = loadConfig({
    NODE_ENV: 'production',
    ENCRYPTION_KEY: 'cd'.repeat(32),
    GITHUB_WEBHOOK_SECRET: 'bench-secret',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    AUTH_RATE_LIMIT_PER_MIN: '1000000',
    ...(database === undefined ? {} : { DATABASE_URL: database.url, REDIS_URL: servers!.redisUrl }),
    ...env,
  });
  const app = await buildApp({ config, infrastructure: { redisKeyPrefix } }, fastifyOptions(config));
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    app,
    config,
    url,
    dataDir,
    close: async () => {
      await app.close();
      await database?.drop();
      if (servers !== undefined) await deleteRedisPrefix(servers.redisUrl, redisKeyPrefix);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Whether the servers run can happen here. */
export async function serversAvailable(): Promise<boolean> {
  const { databaseUrl, redisUrl } = serverUrls();
  try {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 1000 });
    await client.connect();
    await client.end();
    const { Redis } = await import('ioredis');
    const redis = new Redis(redisUrl, { lazyConnect: true, connectTimeout: 1000, maxRetriesPerRequest: 0 });
    await redis.connect();
    redis.disconnect();
    return true;
  } catch {
    return false;
  }
}
