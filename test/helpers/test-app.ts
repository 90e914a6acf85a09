import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { buildApp, fastifyOptions } from '../../src/app.js';
import { loadConfig, type AppConfig, type Role } from '../../src/config/config.js';
import { loggerOptions } from '../../src/lib/logger-options.js';
import type { WorkerOptions } from '../../src/plugins/app/workers.js';
import type { InfrastructureOptions } from '../../src/plugins/external/infrastructure.js';
import { createTestDatabase, deleteRedisPrefix, pgliteTemplate, serverUrls, uniqueName } from './backends.js';
import { Outbox } from './outbox.js';

export interface TestApp {
  app: FastifyInstance;
  config: AppConfig;
  outbox: Outbox;
  /** Every log line the app wrote, raw. */
  logs: string[];
  close(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  infrastructure?: InfrastructureOptions;
  workers?: WorkerOptions;
  /**
   * Run only this role's part (`api`: no workers, so jobs stay queued where a test can see them).
   * Set after validation, which rightly refuses a split role on the embedded database.
   */
  role?: Role;
  /** A built web app to serve (default: web/dist, when built). */
  webDistDir?: string;
}

/**
 * The whole service, isolated: its own data directory, its own database (a PGlite copy, or a new
 * PostgreSQL database) and its own Redis namespace. Logs are captured so tests can check them.
 */
export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const dataDir = await mkdtemp(join(tmpdir(), 'review-service-'));
  const { databaseUrl, redisUrl } = serverUrls();
  const database = databaseUrl === undefined ? undefined : await createTestDatabase(databaseUrl);
  const redisKeyPrefix = `${uniqueName('test')}:`;

  const validated = loadConfig({
    NODE_ENV: 'test',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'debug',
    AUTH_RATE_LIMIT_PER_MIN: '1000',
    ...(database === undefined ? {} : { DATABASE_URL: database.url }),
    ...(redisUrl === undefined ? {} : { REDIS_URL: redisUrl, REDIS_KEY_PREFIX: redisKeyPrefix }),
    ...options.env,
  });
  const config: AppConfig = { ...validated, role: options.role ?? validated.role };

  const logs: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push(chunk.toString());
      done();
    },
  });
  const logger = loggerOptions(config.logLevel, { pretty: false, stream });
  const app = await buildApp(
    {
      config,
      infrastructure: {
        pgliteTemplate: database === undefined ? await pgliteTemplate() : undefined,
        ...options.infrastructure,
        queue: { pollIntervalMs: 20, shutdownGraceMs: 2_000, ...options.infrastructure?.queue },
      },
      workers: { relayIntervalMs: 200, ...options.workers },
      webDistDir: options.webDistDir,
    },
    fastifyOptions(config, logger),
  );

  return {
    app,
    config,
    outbox: new Outbox(join(dataDir, 'outbox')),
    logs,
    close: async () => {
      await app.close();
      await database?.drop();
      if (redisUrl !== undefined) await deleteRedisPrefix(redisUrl, redisKeyPrefix);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
