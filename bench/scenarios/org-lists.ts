import { sql } from 'drizzle-orm';
import type { Executor } from '../../src/db/database.js';
import { queryRows } from '../../src/db/database.js';
import { signUp } from '../lib/accounts.js';
import { load } from '../lib/http-load.js';
import { ORGANIZATION_USERS, ORGANIZATIONS, seedOrganizationLists } from '../lib/list-seed.js';
import { report } from '../lib/report.js';
import { startService, type Backend } from '../lib/service-process.js';

/** 8 connections, as `lists` measures. */
const CONNECTIONS = 8;

/**
 * Pull requests spread over organizations and users (decisions.md §15): on PostgreSQL 100,000 over
 * 20 organizations and 200 users, each user a member of two organizations; embedded 10,000. A
 * quarter of the pull requests are personal. Measures `GET /pull-request/list` as a member: everything
 * visible (the personal range and each organization's, merged), one organization, the personal
 * range, and a deep page, beside `GET /auth/session` as the control.
 */
export async function orgListsBench(backend: Backend, durationSeconds: number) {
  const rows = backend === 'servers' ? 100_000 : 10_000;
  const service = await startService(backend, {}, { createDatabase: true });
  try {
    const cookie = await signUp(service.url, service.dataDir);
    const { userId } = (await (await fetch(`${service.url}/auth/session`, { headers: { cookie } })).json()) as { userId: string };
    const started = performance.now();
    const { orgId, cursor } = await service.inspect(async ({ db }) => {
      await seedOrganizationLists(db, userId, rows);
      return teamCursor(db, rows);
    });
    report(`org lists [${backend}] loaded`, { pullRequests: rows, organizations: ORGANIZATIONS, users: ORGANIZATION_USERS, seconds: (performance.now() - started) / 1000 });
    const url = await service.restart();

    const variants = [
      { name: 'control: GET /auth/session', path: '/auth/session' },
      { name: 'list, everything visible', path: '/pull-request/list' },
      { name: 'list, one organization', path: `/pull-request/list?org=${orgId}` },
      { name: 'list, personal', path: '/pull-request/list?org=personal' },
      { name: 'list, everything visible, cursor mid-way', path: `/pull-request/list?lastUpdatedAt=${encodeURIComponent(cursor)}` },
    ];
    for (const variant of variants) {
      await fetch(`${url}${variant.path}`, { headers: { cookie } });
      const result = await load({ url: `${url}${variant.path}`, headers: { cookie }, duration: durationSeconds, connections: CONNECTIONS });
      report(`${variant.name} [${backend}]`, { 'req/s': result.requestsPerSecond, p50Ms: result.p50Ms, p99Ms: result.p99Ms, non2xx: result.non2xx, errors: result.errors });
    }
  } finally {
    await service.cleanup();
  }
}

/** Organization 0 (the bench user's), and a cursor a page deep into its range. */
async function teamCursor(db: Executor, rows: number): Promise<{ orgId: string; cursor: string }> {
  const [team] = await queryRows<{ id: string }>(db, sql`select id from organizations where slug = 'team-0'`);
  const [middle] = await queryRows<{ at: string }>(
    db,
    sql`select to_char(updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as at from pull_requests
        where org_id = ${team!.id} order by updated_at desc offset ${Math.floor(rows / 80)} limit 1`,
  );
  return { orgId: team!.id, cursor: middle!.at };
}
