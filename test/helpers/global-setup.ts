import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../../src/db/database.js';
import { type PGlite } from '@electric-sql/pglite';

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteTemplatePath: string;
  }
}

/**
 * Creating a PGlite database runs initdb (about 3 s); loading a dump takes a fraction of that.
 * One migrated database is dumped here and every test app starts from a copy of it.
 */
export default async function setup(project: TestProject) {
  const directory = await mkdtemp(join(tmpdir(), 'pglite-template-'));
  const handle = await openDatabase({ url: undefined, dataDir: directory });
  const client = (handle.db as unknown as { $client: PGlite }).$client;
  const dump = await client.dumpDataDir('none');
  await handle.close();
  const path = join(directory, 'template.tar');
  await writeFile(path, Buffer.from(await dump.arrayBuffer()));
  project.provide('pgliteTemplatePath', path);
  return async () => {
    await rm(directory, { recursive: true, force: true });
  };
}
