import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { queryRows } from '../../src/db/database.js';
import { SEARCH_WALK } from '../../src/db/json-page.js';
import { pullRequests, type ReviewStatus } from '../../src/db/schema/index.js';
import { listItem, summaryItem } from '../../src/routes/pull-requests/pull-requests-schemas.js';
import { createAccount, type Account } from '../helpers/accounts.js';
import { createOrg } from '../helpers/orgs.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { newPrId } from '../helpers/webhooks.js';

const BASE = Date.parse('2026-03-01T10:00:00.000Z');
const STATUSES: ReviewStatus[] = ['pending', 'completed', 'failed'];
const REPOS = ['acme/api', 'acme/web', 'other/tool'];

interface Item {
  title: string;
  prId: number;
  repositoryName: string;
  status: string;
  updatedAt: string;
}

/** 30 pull requests, one minute apart, cycling through statuses and repositories. */
async function seedPullRequests(t: TestApp, userId: string, count = 30) {
  const rows = Array.from({ length: count }, (_, i) => ({
    userId,
    prId: newPrId(),
    repositoryName: REPOS[i % 3]!,
    prNumber: i + 1,
    title: i % 5 === 0 ? `Fix 100% CPU_usage in parser #${i}` : `Feature number ${i}`,
    state: 'open',
    reviewStatus: STATUSES[i % 3]!,
    headBranch: `feature-${i}`,
    baseBranch: 'main',
    baseSha: 'a'.repeat(40),
    headSha: 'b'.repeat(40),
    bodyBlob: {},
    createdAt: new Date(BASE + i * 60_000 - 3_600_000),
    updatedAt: new Date(BASE + i * 60_000 + 123),
  }));
  await t.app.db.insert(pullRequests).values(rows);
  return rows;
}

describe('/pull-request lists', () => {
  let t: TestApp;
  let owner: Account;
  let stranger: Account;
  beforeAll(async () => {
    t = await createTestApp({ role: 'api' });
    owner = await createAccount(t.app, t.outbox);
    stranger = await createAccount(t.app, t.outbox);
    await seedPullRequests(t, owner.id);
    await seedPullRequests(t, stranger.id, 5);
  });
  afterAll(() => t.close());

  const list = async (url: string, account = owner) => {
    const response = await t.app.inject({ method: 'GET', url, headers: { cookie: account.cookie } });
    expect(response.statusCode, response.body).toBe(200);
    return response.json<Item[]>();
  };
  const minute = (i: number) => new Date(BASE + i * 60_000 + 123).toISOString();

  it('returns 20, newest first, only the caller’s', async () => {
    const items = await list('/pull-request/list');
    expect(items).toHaveLength(20);
    expect(items[0]!.updatedAt).toBe(minute(29));
    expect(items[19]!.updatedAt).toBe(minute(10));
    expect((await list('/pull-request/list', stranger)).every((item) => !items.some((mine) => mine.prId === item.prId))).toBe(true);
    expect(await list('/pull-request/list', stranger)).toHaveLength(5);
  });

  it('pages with the last item’s updatedAt as cursor, by query or path, inclusive (<=)', async () => {
    const first = await list('/pull-request/list');
    const cursor = first.at(-1)!.updatedAt;
    const byQuery = await list(`/pull-request/list?lastUpdatedAt=${encodeURIComponent(cursor)}`);
    const byPath = await list(`/pull-request/list/${encodeURIComponent(cursor)}`);
    expect(byPath).toEqual(byQuery);
    expect(byQuery[0]!.updatedAt).toBe(cursor);
    expect(byQuery.map((item) => item.updatedAt)).toEqual(Array.from({ length: 11 }, (_, i) => minute(10 - i)));
    const epoch = await list(`/pull-request/list/${Date.parse(cursor)}`);
    expect(epoch).toEqual(byQuery);
  });

  it('orders ascending, and an ascending cursor continues forward (>=)', async () => {
    const ascending = await list('/pull-request/list?order=asc');
    expect(ascending.map((item) => item.updatedAt)).toEqual(Array.from({ length: 20 }, (_, i) => minute(i)));
    const next = await list(`/pull-request/list?order=asc&lastUpdatedAt=${encodeURIComponent(ascending.at(-1)!.updatedAt)}`);
    expect(next.map((item) => item.updatedAt)).toEqual(Array.from({ length: 11 }, (_, i) => minute(19 + i)));
  });

  it('searches titles case-insensitively, with % and _ taken literally', async () => {
    const cpu = await list('/pull-request/list?search=cpu_USAGE');
    expect(cpu).toHaveLength(6);
    expect(cpu.every((item) => item.title.includes('CPU_usage'))).toBe(true);
    expect(await list('/pull-request/list?search=100%25')).toHaveLength(6);
    expect(await list('/pull-request/list?search=%25')).toHaveLength(6);
    expect(await list('/pull-request/list?search=_')).toHaveLength(6);
    expect(await list('/pull-request/list?search=no-such-title')).toEqual([]);
  });

  it('filters by review status, all included', async () => {
    for (const status of STATUSES) {
      const items = await list(`/pull-request/list?reviewStatus=${status}`);
      expect(items).toHaveLength(10);
      expect(items.every((item) => item.status === status)).toBe(true);
    }
    expect(await list('/pull-request/list?reviewStatus=all')).toHaveLength(20);
  });

  it('filters by one repository or several (repeated parameter)', async () => {
    const one = await list('/pull-request/list?repo=acme/web');
    expect(one).toHaveLength(10);
    expect(new Set(one.map((item) => item.repositoryName))).toEqual(new Set(['acme/web']));
    const two = await list('/pull-request/list?repo=acme/web&repo=other/tool');
    expect(two).toHaveLength(20);
    expect(new Set(two.map((item) => item.repositoryName))).toEqual(new Set(['acme/web', 'other/tool']));
    const combined = await list('/pull-request/list?repo=acme/api&reviewStatus=pending&search=feature');
    expect(combined.every((item) => item.repositoryName === 'acme/api' && item.status === 'pending')).toBe(true);
  });

  it('summary: 20 newest updated at or after updatedAt, with search', async () => {
    const response = await t.app.inject({ method: 'GET', url: `/pull-request/list/summary?updatedAt=${encodeURIComponent(minute(25))}`, headers: { cookie: owner.cookie } });
    expect(response.statusCode).toBe(200);
    const items = response.json<Array<{ id: string; prId: number; number: number; title: string; createdAt: string; htmlUrl: string | null }>>();
    expect(items.map((item) => item.number)).toEqual([30, 29, 28, 27, 26]);
    expect(Object.keys(items[0]!).sort()).toEqual(['createdAt', 'htmlUrl', 'id', 'number', 'prId', 'title']);
    const searched = await t.app.inject({ method: 'GET', url: '/pull-request/list/summary?search=cpu', headers: { cookie: owner.cookie } });
    expect(searched.json<unknown[]>()).toHaveLength(6);
    expect((await t.app.inject({ method: 'GET', url: '/pull-request/list/summary', headers: { cookie: owner.cookie } })).json<unknown[]>()).toHaveLength(20);
  });

  it('answers pages of exactly the documented items (the database renders them; no serializer checks them)', async () => {
    await t.app.db.insert(pullRequests).values({
      userId: owner.id, prId: newPrId(), repositoryName: 'acme/api', prNumber: 999, title: 'Quotes " and \\ and \u2028 and émoji 🚀', state: 'open',
      headBranch: 'b', baseBranch: 'main', baseSha: 'a'.repeat(40), headSha: 'b'.repeat(40), bodyBlob: {}, htmlUrl: null, additions: null,
      createdAt: new Date(BASE - 7_200_000), updatedAt: new Date(BASE - 7_200_000),
    });
    const pages = {
      list: ['/pull-request/list', '/pull-request/list?order=asc', `/pull-request/list/${BASE}?reviewStatus=failed&repo=acme/api&repo=acme/web&search=cpu`],
      summary: ['/pull-request/list/summary', '/pull-request/list/summary?search=cpu&updatedAt=0'],
    };
    for (const [kind, urls] of Object.entries(pages)) {
      for (const url of urls) {
        const response = await t.app.inject({ method: 'GET', url, headers: { cookie: owner.cookie } });
        expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
        z.array((kind === 'list' ? listItem : summaryItem).strict()).parse(response.json());
      }
    }
    const [oldest] = await list('/pull-request/list?order=asc');
    expect(oldest).toMatchObject({ title: 'Quotes " and \\ and \u2028 and émoji 🚀', htmlUrl: null, additions: null, createdAt: new Date(BASE - 7_200_000).toISOString() });
    await t.app.db.delete(pullRequests).where(eq(pullRequests.prNumber, 999));
  });

  it.each([
    '/pull-request/list?lastUpdatedAt=yesterday',
    '/pull-request/list/not-a-date',
    '/pull-request/list?reviewStatus=done',
    '/pull-request/list?order=sideways',
    '/pull-request/list/summary?updatedAt=soon',
  ])('refuses %s with 400', async (url) => {
    const response = await t.app.inject({ method: 'GET', url, headers: { cookie: owner.cookie } });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ statusCode: 400, error: 'Bad Request' });
  });

  it('needs a session', async () => {
    for (const url of ['/pull-request/list', '/pull-request/list/summary', `/pull-request/list/${BASE}`]) {
      expect((await t.app.inject({ method: 'GET', url })).statusCode).toBe(401);
    }
  });

  it('finds a term too rare for the newest 1,000 (SEARCH_WALK) through the trigram index, in order, paged', async () => {
    const many = await createAccount(t.app, t.outbox);
    const rows = await seedPullRequests(t, many.id, SEARCH_WALK + 1500);
    // "number 12" is in 12, 120-129 and 1200-1299 (less the CPU titles), all older than the newest 1,000.
    const expected = rows
      .filter((row) => row.title.toLowerCase().includes('number 12'))
      .sort((a, b) => b.updatedAt.getTime() - a.updatedAt.getTime())
      .map((row) => row.title);
    expect(expected.length).toBeGreaterThan(40);
    const first = await list('/pull-request/list?search=NUMBER%2012', many);
    expect(first.map((item) => item.title)).toEqual(expected.slice(0, 20));
    const next = await list(`/pull-request/list?search=number%2012&lastUpdatedAt=${encodeURIComponent(first.at(-1)!.updatedAt)}`, many);
    expect(next.map((item) => item.title)).toEqual(expected.slice(19, 39));
    const oldest = await list('/pull-request/list?search=number%2012&order=asc', many);
    expect(oldest.map((item) => item.title)).toEqual([...expected].reverse().slice(0, 20));
    // Under the filters the search index holds too: a status, several repositories.
    const matching = (keep: (row: (typeof rows)[number]) => boolean) => rows.filter((row) => keep(row) && expected.includes(row.title)).map((row) => row.title);
    const newestFirst = (titles: string[]) => {
      const page = expected.filter((title) => titles.includes(title)).slice(0, 20);
      expect(page).toHaveLength(20);
      return page;
    };
    expect((await list('/pull-request/list?search=number%2012&reviewStatus=failed', many)).map((item) => item.title)).toEqual(
      newestFirst(matching((row) => row.reviewStatus === 'failed')),
    );
    expect((await list('/pull-request/list?search=number%2012&repo=acme/api&repo=other/tool', many)).map((item) => item.title)).toEqual(
      newestFirst(matching((row) => row.repositoryName !== 'acme/web')),
    );
    const summary = await t.app.inject({ method: 'GET', url: '/pull-request/list/summary?search=number%2012', headers: { cookie: many.cookie } });
    expect(summary.json<{ title: string }[]>().map((item) => item.title)).toEqual(expected.slice(0, 20));
    // A common term fills its page from the newest rows.
    const common = await list('/pull-request/list?search=cpu_usage', many);
    expect(common.map((item) => item.title)).toEqual(
      rows.filter((row) => row.title.includes('CPU_usage')).sort((a, b) => b.updatedAt.getTime() - a.updatedAt.getTime()).slice(0, 20).map((row) => row.title),
    );
  });

  it('serves every list variant from an index, not a scan of the table', async () => {
    // Enough other users' rows that a sequential scan would be the planner's choice without the
    // indexes (inserted by the database: 20,000 rows through the driver take seconds).
    const other = await createAccount(t.app, t.outbox);
    await t.app.db.execute(sql`
      insert into pull_requests (user_id, pr_id, repository_name, pr_number, title, state, review_status, head_branch, base_branch,
        base_sha, head_sha, body_blob, created_at, updated_at)
      select ${other.id}, 900000000000 + g, (array['acme/api','acme/web','other/tool'])[1 + g % 3], g, 'Other change #' || g, 'open',
        (array['pending','completed','failed'])[1 + g % 3], 'feature', 'main', 'a', 'b', '{}', now(), now() - g * interval '1 minute'
      from generate_series(1, 20000) g`);
    // And a user with enough of their own that sorting all of them would cost more than the index.
    const heavy = await createAccount(t.app, t.outbox);
    await seedPullRequests(t, heavy.id, 3000);
    // And the same again in each of two organizations of theirs (decisions.md §15), one authored by another user.
    const orgs = [await createOrg(t.app, heavy, 'Heavy Team'), await createOrg(t.app, heavy, 'Other Team')];
    for (const org of orgs) {
      await t.app.db.execute(sql`
        insert into pull_requests (user_id, org_id, pr_id, repository_name, pr_number, title, state, review_status, head_branch, base_branch,
          base_sha, head_sha, body_blob, created_at, updated_at)
        select ${other.id}, ${org.id}, 800000000000 + g + ${orgs.indexOf(org)} * 10000, (array['acme/api','acme/web','other/tool'])[1 + g % 3], g, 'Team change #' || g, 'open',
          (array['pending','completed','failed'])[1 + g % 3], 'feature', 'main', 'a', 'b', '{}', now(), now() - g * interval '1 minute'
        from generate_series(1, 3000) g`);
    }
    await t.app.db.execute(sql`analyze pull_requests`);
    const repo = t.app.repos.pullRequests;
    // Each variant and the indexes it must use; `sorts` only where the matches (not the user's pull
    // requests) are sorted: several repositories (a page of each, merged), or a search (its walk of
    // the newest, then, for a rarer term, its matches from an index: at this user's 3,000 rows the
    // planner may prefer their range to the trigram index, which the benchmark's 100,000 show).
    // Without `space`, every list reads one range per space the user may see (personal, each
    // organization) and merges them: a sort of at most 20 keys per space.
    const byUpdated = /Index (Only )?Scan( Backward)? using pull_requests_user_updated_idx/;
    const byOrgUpdated = /Index (Only )?Scan( Backward)? using pull_requests_org_updated_idx/;
    const searched = [byUpdated, /Bitmap Index Scan on pull_requests_user_(title_search|updated)_idx/];
    const queries = {
      default: { query: repo.listPageQuery(heavy.id, { order: 'desc' }), index: [byUpdated, byOrgUpdated], sorts: true },
      cursor: { query: repo.listPageQuery(heavy.id, { order: 'desc', cursor: new Date(BASE + 1500 * 60_000) }), index: [byUpdated, byOrgUpdated], sorts: true },
      ascending: { query: repo.listPageQuery(heavy.id, { order: 'asc', cursor: new Date(BASE) }), index: [byUpdated, byOrgUpdated], sorts: true },
      personal: { query: repo.listPageQuery(heavy.id, { order: 'desc', space: 'personal' }), index: byUpdated, sorts: false },
      organization: { query: repo.listPageQuery(heavy.id, { order: 'desc', space: { orgId: orgs[0]!.id } }), index: byOrgUpdated, sorts: false },
      personalStatus: { query: repo.listPageQuery(heavy.id, { order: 'desc', space: 'personal', status: 'failed' }), index: /Index (Only )?Scan( Backward)? using pull_requests_user_status_updated_idx/, sorts: false },
      personalRepository: { query: repo.listPageQuery(heavy.id, { order: 'desc', space: 'personal', repositories: ['acme/web'] }), index: /Index (Only )?Scan( Backward)? using pull_requests_user_repository_updated_idx/, sorts: false },
      personalRepositories: { query: repo.listPageQuery(heavy.id, { order: 'desc', space: 'personal', repositories: ['acme/api', 'acme/web'] }), index: /Index (Only )?Scan( Backward)? using pull_requests_user_repository_updated_idx/, sorts: true },
      search: { query: repo.listPageQuery(heavy.id, { order: 'desc', search: '#1205' }), index: searched, sorts: true },
      summary: { query: repo.summaryPageQuery(heavy.id, new Date(BASE), '#1205'), index: searched, sorts: true },
      summaryAll: { query: repo.summaryPageQuery(heavy.id, new Date(BASE), undefined), index: [byUpdated, byOrgUpdated], sorts: true },
    };
    for (const [name, { query, index, sorts }] of Object.entries(queries)) {
      const plan = (await queryRows<{ 'QUERY PLAN': string }>(t.app.db, sql`explain ${query}`)).map((row) => row['QUERY PLAN']).join('\n');
      for (const used of [index].flat()) expect(plan, `${name}:\n${plan}`).toMatch(used);
      expect(plan, `${name}:\n${plan}`).not.toMatch(/Seq Scan on pull_requests/);
      if (!sorts) expect(plan, `${name}:\n${plan}`).not.toMatch(/Sort/);
    }
  });
});
