import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp, fastifyOptions } from '../../src/app.js';
import { loadConfig } from '../../src/config/config.js';
import { serviceSettings } from '../../src/db/schema/index.js';
import { createTestDatabase, serverUrls } from '../helpers/backends.js';

const quiet = { level: 'silent' };

/** A process of the service (both roles) on `dataDir` and, when given, a PostgreSQL database. */
async function start(dataDir: string, env: Record<string, string>): Promise<FastifyInstance> {
  const config = loadConfig({ NODE_ENV: 'development', DATA_DIR: dataDir, ...env });
  return buildApp({ config }, fastifyOptions(config, quiet));
}

describe('one encryption key per database', () => {
  const cleanup: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const step of cleanup.reverse()) await step();
  });
  const tempDir = async () => {
    const dir = await mkdtemp(join(tmpdir(), 'key-check-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    return dir;
  };

  it('a second process with another key on the same database refuses to start and says what to set', { timeout: 120_000 }, async () => {
    const { databaseUrl } = serverUrls();
    let first: FastifyInstance;
    let second: Promise<FastifyInstance>;
    if (databaseUrl !== undefined) {
      // API and worker apart, neither given ENCRYPTION_KEY: each generates a key in its own DATA_DIR.
      const database = await createTestDatabase(databaseUrl);
      cleanup.push(() => database.drop());
      first = await start(await tempDir(), { DATABASE_URL: database.url });
      cleanup.push(() => first.close());
      second = start(await tempDir(), { DATABASE_URL: database.url });
    } else {
      // The embedded database lives in DATA_DIR: the same database started again with another key.
      const dataDir = await tempDir();
      first = await start(dataDir, { ENCRYPTION_KEY: randomBytes(32).toString('hex') });
      await first.close();
      second = start(dataDir, { ENCRYPTION_KEY: randomBytes(32).toString('hex') });
    }
    await expect(second).rejects.toThrow(/ENCRYPTION_KEY: is not the key this database was set up with.*set ENCRYPTION_KEY in each/);
  });

  it('a process with the same key starts, and the key itself is never stored', { timeout: 120_000 }, async () => {
    const key = randomBytes(32).toString('hex');
    const { databaseUrl } = serverUrls();
    const database = databaseUrl === undefined ? undefined : await createTestDatabase(databaseUrl);
    if (database !== undefined) cleanup.push(() => database.drop());
    const env = { ENCRYPTION_KEY: key, ...(database === undefined ? {} : { DATABASE_URL: database.url }) };
    const dataDir = await tempDir();
    const first = await start(dataDir, env);
    await first.close();
    const again = await start(database === undefined ? dataDir : await tempDir(), env);
    cleanup.push(() => again.close());
    const rows = await again.database.db.select().from(serviceSettings);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.value).not.toContain(key);
    expect(rows[0]!.value).toMatch(/^[0-9a-f]{64}$/);
  });
});
