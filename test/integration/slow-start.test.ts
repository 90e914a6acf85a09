import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MIGRATIONS_FOLDER } from '../../src/db/database.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

const SLOW_SECONDS = 11;

/** The project's migrations plus one that sleeps past Fastify's 10 s plugin timeout. */
async function slowMigrations(): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'slow-migrations-'));
  await cp(MIGRATIONS_FOLDER, folder, { recursive: true });
  const journalFile = join(folder, 'meta', '_journal.json');
  const journal = JSON.parse(await readFile(journalFile, 'utf8')) as { entries: Array<{ idx: number; version: string; when: number; tag: string; breakpoints: boolean }> };
  const tag = '9999_slow_for_test';
  journal.entries.push({ idx: journal.entries.length, version: '7', when: Date.now(), tag, breakpoints: true });
  await writeFile(journalFile, JSON.stringify(journal));
  await writeFile(join(folder, `${tag}.sql`), `select pg_sleep(${SLOW_SECONDS});`);
  return folder;
}

describe('start', () => {
  let t: TestApp | undefined;
  let folder: string | undefined;
  afterAll(async () => {
    await t?.close();
    if (folder !== undefined) await rm(folder, { recursive: true, force: true });
  });

  it('waits for a migration slower than Fastify’s 10 s plugin timeout, saying so, and comes up', { timeout: 90_000 }, async () => {
    folder = await slowMigrations();
    const startedAt = Date.now();
    t = await createTestApp({ infrastructure: { migrationsFolder: folder, progressEveryMs: 2_000 } });
    expect(Date.now() - startedAt).toBeGreaterThan(SLOW_SECONDS * 1_000);
    expect((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    const logs = t.logs.join('');
    expect(logs).toContain('opening the database and applying migrations');
    // PGlite runs in this thread and holds the event loop through a migration, so only a server's
    // migration leaves room for the progress lines.
    if (t.app.database.kind === 'postgres') expect(logs).toContain('still opening the database and applying migrations');
  });
});
