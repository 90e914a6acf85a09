import { sql } from 'drizzle-orm';
import type { Executor } from '../../src/db/database.js';
import { queryRows } from '../../src/db/database.js';
import { signUp } from '../lib/accounts.js';
import { load } from '../lib/http-load.js';
import { seedLists } from '../lib/list-seed.js';
import { report } from '../lib/report.js';
import { startService, type Backend } from '../lib/service-process.js';

/** 8 connections, as `lists` measures. */
const CONNECTIONS = 8;
const ORGANIZATIONS = 20;
const USERS = 200;

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
    const { orgId, cursor } = await service.inspect(({ db }) => seedOrganizations(db, userId, rows));
    report(`org lists [${backend}] loaded`, { pullRequests: rows, organizations: ORGANIZATIONS, users: USERS, seconds: (performance.now() - started) / 1000 });
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

/**
 * The lists' own seed for the bench user, then its rows handed out: every fourth stays personal
 * (its user one of the 200), the rest go to the 20 organizations. The bench user is a member of
 * organizations 0 and 7, every other user of two as well.
 */
async function seedOrganizations(db: Executor, userId: string, rows: number): Promise<{ orgId: string; cursor: string }> {
  await seedLists(db, userId, { userRows: rows, tableRows: rows, threads: 1 });
  await db.execute(sql`
    insert into users (name, email, login_method)
    select 'Member ' || i, 'bench-member-' || i || '@example.com', 'email' from generate_series(1, ${USERS - 1}::int) i`);
  await db.execute(sql`
    insert into organizations (name, slug)
    select 'Team ' || i, 'team-' || i from generate_series(0, ${ORGANIZATIONS - 1}::int) i`);
  const numbered = sql`
    people as (select id, (row_number() over (order by id = ${userId} desc, email)) - 1 as n from users where id = ${userId} or email like 'bench-member-%'),
    teams as (select id, (row_number() over (order by slug)) - 1 as n from organizations)`;
  await db.execute(sql`
    with ${numbered}
    insert into organization_members (org_id, user_id, role)
    select teams.id, people.id, case when people.n = 0 then 'owner'::org_role else 'member'::org_role end
    from people join teams on teams.n in (people.n % ${ORGANIZATIONS}, (people.n + 7) % ${ORGANIZATIONS})`);
  await db.execute(sql`
    with ${numbered}, numbered_prs as (select id, row_number() over (order by id) as g from pull_requests)
    update pull_requests set
      user_id = (select id from people where n = numbered_prs.g % ${USERS}),
      org_id = case when numbered_prs.g % 4 = 0 then null else (select id from teams where n = (numbered_prs.g / 4) % ${ORGANIZATIONS}) end
    from numbered_prs where numbered_prs.id = pull_requests.id`);
  await db.execute(sql`vacuum analyze pull_requests`);
  await db.execute(sql`vacuum analyze organization_members`);
  const [team] = await queryRows<{ id: string }>(db, sql`select id from organizations where slug = 'team-0'`);
  const [middle] = await queryRows<{ at: string }>(
    db,
    sql`select to_char(updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as at from pull_requests
        where org_id = ${team!.id} order by updated_at desc offset ${Math.floor(rows / 80)} limit 1`,
  );
  return { orgId: team!.id, cursor: middle!.at };
}
