import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type DatabaseHandle } from '../../src/db/database.js';
import { ConversationRepository } from '../../src/repositories/conversation-repository.js';
import { PullRequestRepository, type PullRequestFilter } from '../../src/repositories/pull-request-repository.js';
import { ReviewRepository } from '../../src/repositories/review-repository.js';
import { DASHBOARD_SIZE } from '../../src/services/review-service.js';
import { signUp } from '../lib/accounts.js';
import { load } from '../lib/http-load.js';
import { middleCursor, REPOSITORY_COUNT, seedLists, TITLE_NOUNS, type ListSeed } from '../lib/list-seed.js';
import { report } from '../lib/report.js';
import { startService, type Backend } from '../lib/service-process.js';

const positive = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer, not "${process.env[name]}"`);
  return value;
};

/**
 * Sizes: on PostgreSQL 100,000 pull requests of the bench user in a table of 1,000,000
 * (BENCH_LIST_USER_ROWS, BENCH_LIST_TABLE_ROWS); embedded, 10,000 in a table of 50,000.
 */
const sizes = (backend: Backend): ListSeed =>
  backend === 'servers'
    ? { userRows: positive('BENCH_LIST_USER_ROWS', 100_000), tableRows: positive('BENCH_LIST_TABLE_ROWS', 1_000_000), threads: 10_000 }
    : { userRows: 10_000, tableRows: 50_000, threads: 10_000 };

/** 8 connections, as a few users' dashboards would hold. */
const CONNECTIONS = 8;

interface Variant {
  name: string;
  path: string;
  /** The repository's query behind the endpoint, for EXPLAIN. */
  query: (database: DatabaseHandle) => SQL | { getSQL(): SQL };
}

function variants(userId: string, cursor: string): Variant[] {
  const list = (name: string, query: string, filter: Omit<PullRequestFilter, 'order'> & { order?: 'asc' | 'desc' }): Variant => ({
    name,
    path: `/pull-request/list${query}`,
    query: (database) => new PullRequestRepository(database).listPageQuery(userId, { order: 'desc', ...filter }),
  });
  const common = TITLE_NOUNS[4]!;
  return [
    list('list', '', {}),
    list('list, cursor mid-way', `?lastUpdatedAt=${encodeURIComponent(cursor)}`, { cursor: new Date(cursor) }),
    list('list asc', '?order=asc', { order: 'asc' }),
    list('list asc, cursor', `?order=asc&lastUpdatedAt=${encodeURIComponent(cursor)}`, { order: 'asc', cursor: new Date(cursor) }),
    list('list failed (5%)', '?reviewStatus=failed', { status: 'failed' }),
    list('list pending (15%)', '?reviewStatus=pending', { status: 'pending' }),
    list('list one repo', '?repo=acme/service-7', { repositories: ['acme/service-7'] }),
    list('list two repos', '?repo=acme/service-7&repo=acme/service-8', { repositories: ['acme/service-7', 'acme/service-8'] }),
    list(`list search "${common}" (1/30)`, `?search=${common}`, { search: common }),
    list('list search "#4242" (rare)', `?search=${encodeURIComponent('#4242')}`, { search: '#4242' }),
    list(`list search + failed`, `?search=${common}&reviewStatus=failed`, { search: common, status: 'failed' }),
    {
      name: 'summary since mid-way',
      path: `/pull-request/list/summary?updatedAt=${encodeURIComponent(cursor)}`,
      query: (database) => new PullRequestRepository(database).summaryPageQuery(userId, new Date(cursor), undefined),
    },
    {
      name: `summary search "${common}"`,
      path: `/pull-request/list/summary?search=${common}`,
      query: (database) => new PullRequestRepository(database).summaryPageQuery(userId, undefined, common),
    },
    { name: 'review list', path: '/review/list', query: (database) => new ReviewRepository(database).recentQuery(userId, DASHBOARD_SIZE) },
    { name: 'conversations', path: '/conversation', query: (database) => new ConversationRepository(database).threadsPageQuery(userId, undefined) },
  ];
}

/**
 * The lists at scale: one user with 100,000 pull requests (10,000 embedded) among other users',
 * each with a 24 KB payload, a cached diff and a review, and 10,000 chat threads. Measures p50/p99
 * of every list variant at 8 connections, then prints each query's plan (EXPLAIN ANALYZE).
 */
export async function listsBench(backend: Backend, durationSeconds: number) {
  const seed = sizes(backend);
  const service = await startService(backend, {}, { createDatabase: true });
  try {
    const cookie = await signUp(service.url, service.dataDir);
    const session = await (await fetch(`${service.url}/auth/session`, { headers: { cookie } })).json();
    const userId = (session as { userId: string }).userId;

    const started = performance.now();
    const cursor = await service.inspect(async ({ db }) => {
      await seedLists(db, userId, seed);
      return middleCursor(db, userId, seed.userRows);
    });
    const tableSize = await service.inspect(async ({ db }) => {
      const [row] = await queryRows<{ size: string }>(db, sql`select pg_size_pretty(pg_total_relation_size('pull_requests')) as size`);
      return row!.size;
    });
    report(`lists [${backend}] loaded`, { userRows: seed.userRows, tableRows: seed.tableRows, repositories: REPOSITORY_COUNT, seconds: (performance.now() - started) / 1000, pullRequests: tableSize });
    // Embedded, inspecting stopped the server (PGlite is one process's); servers: a no-op restart is cheap.
    const url = await service.restart();

    // The control: the cheapest authenticated request, measured alongside, so the figures can be read
    // against what the machine gives any request at the time.
    const all = [{ name: 'control: GET /auth/session', path: '/auth/session', query: undefined }, ...variants(userId, cursor)];
    for (const variant of all) {
      // One request first: the first of a process plans and caches what the rest reuse.
      await fetch(`${url}${variant.path}`, { headers: { cookie } });
      const result = await load({ url: `${url}${variant.path}`, headers: { cookie }, duration: durationSeconds, connections: CONNECTIONS });
      report(`${variant.name} [${backend}]`, { 'req/s': result.requestsPerSecond, p50Ms: result.p50Ms, p99Ms: result.p99Ms, non2xx: result.non2xx, errors: result.errors });
    }

    await service.inspect(async (database) => {
      for (const variant of all) {
        if (variant.query === undefined) continue;
        const plan = await queryRows<{ 'QUERY PLAN': string }>(database.db, sql`explain (analyze, costs off) ${variant.query(database)}`);
        console.log(`\n-- ${variant.name} [${backend}]: GET ${variant.path}\n${plan.map((row) => row['QUERY PLAN']).join('\n')}`);
      }
    });
  } finally {
    await service.cleanup();
  }
}
