import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../../test/helpers/server-process.js';
import { report } from '../lib/report.js';

/**
 * Time from launching `src/server.ts` (as `npm start` does) to its ready line, on embedded
 * defaults: cold (a new DATA_DIR: the database is created) and warm (the same DATA_DIR again).
 */
export async function startupBench() {
  const dataDir = await mkdtemp(join(tmpdir(), 'bench-startup-'));
  try {
    for (const label of ['cold (new DATA_DIR)', 'warm (existing DATA_DIR)']) {
      const started = performance.now();
      const server = await startServer({ DATA_DIR: dataDir }, { logFile: join(dataDir, 'server.log') });
      const readyMs = performance.now() - started;
      try {
        const healthy = await fetch(`${server.url}/healthz`);
        report(`startup ${label}`, { readyMs, healthz: healthy.status });
      } finally {
        await server.stop();
      }
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}
