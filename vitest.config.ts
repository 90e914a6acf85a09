import { availableParallelism } from 'node:os';
import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';

const withServers = Boolean(process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL);

/**
 * Integration tests run once on the embedded backends (PGlite, in-process store, database queue)
 * and, when TEST_DATABASE_URL and TEST_REDIS_URL are set, once more on PostgreSQL, Redis and BullMQ.
 */
const projects: TestProjectInlineConfiguration[] = [
  { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts', 'test/contract/**/*.test.ts'] } },
  { extends: true, test: { name: 'embedded', include: ['test/integration/**/*.test.ts', 'test/e2e/**/*.test.ts'], env: { TEST_DATABASE_URL: '', TEST_REDIS_URL: '' } } },
  // The web app in headless Chromium against the real service (embedded backends: one run is enough).
  {
    extends: true,
    test: {
      name: 'browser',
      include: ['test/browser/**/*.test.ts'],
      env: { TEST_DATABASE_URL: '', TEST_REDIS_URL: '' },
      globalSetup: ['test/helpers/global-setup.ts', 'test/browser/build-web-setup.ts'],
      testTimeout: 60_000,
    },
  },
];
if (withServers) projects.push({ extends: true, test: { name: 'servers', include: ['test/integration/**/*.test.ts'] } });

/**
 * Most test files spend their time waiting: on PostgreSQL and Redis in other processes, on child
 * processes, on fake HTTP servers. Vitest's default (one worker less than the cores) leaves a
 * 2-core machine with a single worker and most of its CPU idle, so run one more worker than cores.
 * The cap keeps the databases' connection counts well under PostgreSQL's default 100.
 */
const workers = Math.min(Math.max(availableParallelism() + 1, 3), 8);

export default defineConfig({
  test: {
    maxWorkers: workers,
    // Each test file builds its own apps, databases and fakes, and keeps no state in modules. With
    // isolation, every file evaluated the whole service's module graph again in its worker, a third
    // or more of a run's CPU on 2 cores (8 integration files: 85 s without sharing, 64 s with).
    isolate: false,
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects,
  },
});
