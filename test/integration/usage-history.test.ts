import { asc, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { pullRequests, reviewRuns, usageDaily, usageRecords, type UsageKind } from '../../src/db/schema/index.js';
import { historyResponse } from '../../src/routes/usage/usage-schemas.js';
import { FakeOpenAIChat } from '../fakes/fake-openai-chat.js';
import { createAccount, type Account } from '../helpers/accounts.js';
import { signInWithGitHub } from '../helpers/github-login.js';
import { SAMPLE_DIFF, scriptedReviewer, settledReview } from '../helpers/review-fixtures.js';
import { deliverPullRequest, reviewWorld, type ReviewWorld } from '../helpers/review-world.js';

// review-world's platform catalog: platform-a at 1 / 2 USD per million tokens, platform-b at 2 / 4.
// The fake model reports 100 input and 20 output tokens for every call.
const COST_A = (100 * 1 + 20 * 2) / 1_000_000;
const COST_B = (100 * 2 + 20 * 4) / 1_000_000;
// The OpenRouter stand-in lists 3 and 15 USD per million (as USD per token).
const COST_ROUTER = (100 * 3 + 20 * 15) / 1_000_000;

const CSV_HEADER = 'at,kind,modelId,source,inputTokens,outputTokens,costUsd,repositoryName,pullRequestId,durationMs';

interface History {
  from: string;
  to: string;
  groupBy: string;
  buckets: Array<{ key: string; generations: number; inputTokens: number; outputTokens: number; costUsd: number }>;
  total: { generations: number; inputTokens: number; outputTokens: number; costUsd: number };
}

const bucketSchema = historyResponse.shape.buckets.element;
const totalSchema = historyResponse.shape.total;

const today = () => new Date().toISOString().slice(0, 10);

describe('usage analytics (decisions.md §14)', () => {
  let world: ReviewWorld;
  let router: FakeOpenAIChat;

  beforeAll(async () => {
    router = await new FakeOpenAIChat().start();
    router.alwaysStreamUsage = true;
    router.models = [{ id: 'vendor/priced', context_length: 64_000, pricing: { prompt: '0.000003', completion: '0.000015' } }, { id: 'vendor/unpriced' }];
    world = await reviewWorld({ BYOK_OPENROUTER_BASE_URL: router.url });
    world.model.reply(scriptedReviewer());
  });
  afterAll(async () => {
    await world.close();
    await router.stop();
  });

  const get = (cookie: string | undefined, url: string) => world.t.app.inject({ method: 'GET', url, headers: cookie === undefined ? {} : { cookie } });
  const history = async (cookie: string, query = '') => {
    const response = await get(cookie, `/usage/history${query}`);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    // The database renders the answer: the route's schema (the API document's) must still hold, exactly.
    historyResponse.strict().extend({ buckets: z.array(bucketSchema.strict()), total: totalSchema.strict() }).parse(response.json());
    return response.json<History>();
  };
  const records = (userId: string) => world.t.app.db.select().from(usageRecords).where(eq(usageRecords.userId, userId)).orderBy(asc(usageRecords.id));
  const chat = async (cookie: string, payload: object) => {
    const response = await world.t.app.inject({ method: 'POST', url: '/conversation/chat', headers: { cookie }, payload });
    expect(response.statusCode, response.body).toBe(200);
  };

  /** A user's calls on given days, written as the service writes them: the records, and their daily rollup. */
  async function seedCalls(userId: string, calls: Array<{ day: string; kind?: UsageKind; modelId?: string; repositoryName?: string | null; costUsd?: number }>) {
    const daily = new Map<string, typeof usageDaily.$inferInsert>();
    for (const call of calls) {
      const row = { userId, kind: call.kind ?? 'chat', modelId: call.modelId ?? 'model-x', source: 'platform', repositoryName: call.repositoryName ?? null, inputTokens: 10, outputTokens: 5, costUsd: call.costUsd ?? 0.5 };
      await world.t.app.db.insert(usageRecords).values({ ...row, at: new Date(`${call.day}T12:00:00.000Z`), durationMs: 40 });
      const key = JSON.stringify([call.day, row.kind, row.modelId, row.repositoryName]);
      const sum = daily.get(key) ?? { ...row, day: call.day, generations: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 };
      daily.set(key, { ...sum, generations: sum.generations + 1, inputTokens: sum.inputTokens + 10, outputTokens: sum.outputTokens + 5, costUsd: sum.costUsd + row.costUsd });
    }
    await world.t.app.db.insert(usageDaily).values([...daily.values()]);
  }

  describe('records', () => {
    it('a review, its verification, a chat (answer and title) and a command each leave a record with the tokens and the catalog’s cost', async () => {
      const author = await signInWithGitHub(world.t.app, world.github);
      await world.t.app.inject({ method: 'POST', url: '/workspace/aiSettings', headers: { cookie: author.cookie }, payload: { deepModeModel: 'platform-b' } });
      const payload = await deliverPullRequest(world, author, SAMPLE_DIFF, { title: 'Usage of a review' });
      const first = await settledReview(world.t.app, author.cookie, payload.pull_request.id);
      const pullRequestId = first.id;
      const rerun = await world.t.app.inject({ method: 'POST', url: `/review/${first.id}`, headers: { cookie: author.cookie }, payload: { mode: 'deep' } });
      expect(rerun.statusCode).toBe(200);
      await settledReview(world.t.app, author.cookie, payload.pull_request.id, { until: (review) => review.mode === 'deep' && review.reviewStatus === 'completed' });

      await chat(author.cookie, { message: 'What does this change do?', prId: pullRequestId });
      const [pr] = await world.t.app.db.select().from(pullRequests).where(eq(pullRequests.id, pullRequestId));
      const events = await world.t.app.services.conversations.open(author.userId, { message: 'Why?' }, AbortSignal.timeout(10_000), { pr: pr!, memberId: null });
      for await (const event of events) void event;

      const rows = await records(author.userId);
      const repositoryName = 'Codertocat/Hello-World';
      const common = { userId: author.userId, source: 'platform', inputTokens: 100, outputTokens: 20, pullRequestId, repositoryName };
      expect(rows.map(({ kind, modelId }) => `${kind}:${modelId}`)).toEqual([
        'review:platform-a',
        'review:platform-b',
        'verification:platform-b',
        'chat:platform-a',
        'chat:platform-a',
        'command:platform-a',
        'command:platform-a',
      ]);
      for (const row of rows) {
        expect(row).toMatchObject(common);
        expect(row.costUsd).toBeCloseTo(row.modelId === 'platform-b' ? COST_B : COST_A, 10);
        expect(row.durationMs).toBeGreaterThanOrEqual(0);
      }

      // The history and the allowance add up to the same spend.
      const spent = (await get(author.cookie, '/usage')).json<{ utilizedCost: number }>().utilizedCost;
      const byKind = await history(author.cookie, '?groupBy=kind');
      expect(byKind.total).toEqual({ generations: 7, inputTokens: 700, outputTokens: 140, costUsd: spent });
      expect(spent).toBeCloseTo(5 * COST_A + 2 * COST_B, 9);
      expect(byKind.buckets.map(({ key, generations }) => [key, generations])).toEqual([
        ['chat', 2],
        ['command', 2],
        ['review', 2],
        ['verification', 1],
      ]);
      const byDay = await history(author.cookie);
      expect(byDay.buckets).toHaveLength(30);
      expect(byDay.buckets.at(-1)).toMatchObject({ key: today(), generations: 7 });
      expect(byDay.total).toEqual(byKind.total);
      const byRepository = await history(author.cookie, '?groupBy=repository');
      expect(byRepository.buckets).toEqual([{ key: 'Codertocat/Hello-World', generations: 7, inputTokens: 700, outputTokens: 140, costUsd: spent }]);

      // Both runs are counted, queue to completion.
      const reviews = (await get(author.cookie, '/usage/reviews')).json<{ durationMs: { p50: number; max: number } }>();
      expect(reviews).toMatchObject({ count: 2, byMode: { quick: 0, focused: 1, deep: 1 }, byStatus: { completed: 2, failed: 0 } });
      expect(reviews.durationMs.max).toBeGreaterThanOrEqual(reviews.durationMs.p50);
    });

    it('a call on the user’s own key carries its catalog’s prices, or 0 without them, and is never charged', async () => {
      const account = await createAccount(world.t.app, world.t.outbox);
      const added = await world.t.app.inject({ method: 'POST', url: '/byok', headers: { cookie: account.cookie }, payload: { modelProviderName: 'openrouter', apiKey: 'sk-or-v1-usage' } });
      expect(added.statusCode, added.body).toBe(201);
      await chat(account.cookie, { message: 'Hello', llmModel: 'vendor/priced' });
      await chat(account.cookie, { message: 'Hello', llmModel: 'vendor/unpriced' });

      const rows = await records(account.id);
      expect(rows.map(({ kind, modelId, source, pullRequestId, repositoryName }) => ({ kind, modelId, source, pullRequestId, repositoryName }))).toEqual([
        { kind: 'chat', modelId: 'vendor/priced', source: 'openrouter', pullRequestId: null, repositoryName: null },
        { kind: 'chat', modelId: 'vendor/priced', source: 'openrouter', pullRequestId: null, repositoryName: null },
        { kind: 'chat', modelId: 'vendor/unpriced', source: 'openrouter', pullRequestId: null, repositoryName: null },
        { kind: 'chat', modelId: 'vendor/unpriced', source: 'openrouter', pullRequestId: null, repositoryName: null },
      ]);
      expect(rows.map((row) => [row.inputTokens, row.outputTokens, row.costUsd])).toEqual([
        [100, 20, COST_ROUTER],
        [100, 20, COST_ROUTER],
        [100, 20, 0],
        [100, 20, 0],
      ]);
      expect((await get(account.cookie, '/usage')).json()).toMatchObject({ utilizedCost: 0 });
      const byModel = await history(account.cookie, '?groupBy=model');
      expect(byModel.buckets).toEqual([
        { key: 'vendor/priced', generations: 2, inputTokens: 200, outputTokens: 40, costUsd: 2 * COST_ROUTER },
        { key: 'vendor/unpriced', generations: 2, inputTokens: 200, outputTokens: 40, costUsd: 0 },
      ]);
      expect((await history(account.cookie, '?groupBy=repository')).buckets.map((bucket) => bucket.key)).toEqual(['(none)']);
    });
  });

  describe('history', () => {
    it('fills every day and every week of the range, keys weeks by their Monday, and filters by model', async () => {
      const account = await createAccount(world.t.app, world.t.outbox);
      await seedCalls(account.id, [
        { day: '2026-03-02', modelId: 'model-x', costUsd: 0.25 },
        { day: '2026-03-02', modelId: 'model-x', costUsd: 0.25 },
        { day: '2026-03-04', modelId: 'model-y', kind: 'review', repositoryName: 'octo/repo', costUsd: 1 },
        { day: '2026-03-15', modelId: 'model-y', costUsd: 2 },
      ]);
      const days = await history(account.cookie, '?from=2026-03-01&to=2026-03-15');
      expect(days).toMatchObject({ from: '2026-03-01', to: '2026-03-15', groupBy: 'day' });
      expect(days.buckets.map((bucket) => bucket.key)).toEqual(Array.from({ length: 15 }, (_, index) => `2026-03-${String(index + 1).padStart(2, '0')}`));
      expect(days.buckets[0]).toEqual({ key: '2026-03-01', generations: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 });
      expect(days.buckets[1]).toEqual({ key: '2026-03-02', generations: 2, inputTokens: 20, outputTokens: 10, costUsd: 0.5 });
      expect(days.total).toEqual({ generations: 4, inputTokens: 40, outputTokens: 20, costUsd: 3.5 });

      // 2026-03-01 is a Sunday: its week began on Monday 2026-02-23.
      const weeks = await history(account.cookie, '?from=2026-03-01&to=2026-03-15&groupBy=week');
      expect(weeks.buckets.map(({ key, costUsd }) => [key, costUsd])).toEqual([
        ['2026-02-23', 0],
        ['2026-03-02', 1.5],
        ['2026-03-09', 2],
      ]);
      const model = await history(account.cookie, '?from=2026-03-01&to=2026-03-15&modelId=model-y');
      expect(model.total).toMatchObject({ generations: 2, costUsd: 3 });
      const repositories = await history(account.cookie, '?from=2026-03-01&to=2026-03-15&groupBy=repository');
      expect(repositories.buckets.map(({ key, generations }) => [key, generations])).toEqual([
        ['(none)', 3],
        ['octo/repo', 1],
      ]);
      // `to` is included; a range after the calls is all zeros.
      expect((await history(account.cookie, '?from=2026-03-15&to=2026-03-15')).total.generations).toBe(1);
      expect((await history(account.cookie, '?from=2026-03-16&to=2026-03-20')).total).toEqual({ generations: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 });
    });

    it('takes the last 30 days by default and accepts exactly 366 days', async () => {
      const account = await createAccount(world.t.app, world.t.outbox);
      const recent = await history(account.cookie);
      expect(recent.to).toBe(today());
      expect(recent.buckets).toHaveLength(30);
      expect((await history(account.cookie, '?from=2025-01-01')).to).toBe('2025-01-30');
      const year = await history(account.cookie, '?from=2024-01-01&to=2024-12-31');
      expect(year.buckets).toHaveLength(366);
    });

    it('reviews: counts by mode and outcome, and duration percentiles of the runs finished in the range', async () => {
      const account = await createAccount(world.t.app, world.t.outbox);
      const durations = [1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000, 9000, 10_000];
      for (const [index, durationMs] of durations.entries()) {
        const completedAt = new Date(`2026-02-${String(index + 1).padStart(2, '0')}T10:00:00.000Z`);
        await world.t.app.db.insert(reviewRuns).values({
          runId: crypto.randomUUID(),
          userId: account.id,
          mode: index < 5 ? 'quick' : index < 8 ? 'focused' : 'deep',
          status: index === 9 ? 'failed' : 'completed',
          startedAt: new Date(completedAt.getTime() - durationMs),
          completedAt,
          durationMs,
        });
      }
      const all = (await get(account.cookie, '/usage/reviews?from=2026-02-01&to=2026-02-28')).json();
      expect(all).toEqual({ count: 10, byMode: { quick: 5, focused: 3, deep: 2 }, byStatus: { completed: 9, failed: 1 }, durationMs: { p50: 5000, p90: 9000, max: 10_000 } });
      const first = (await get(account.cookie, '/usage/reviews?from=2026-02-01&to=2026-02-02')).json();
      expect(first).toMatchObject({ count: 2, durationMs: { max: 2000 } });
      const none = (await get(account.cookie, '/usage/reviews?from=2025-02-01&to=2025-02-02')).json();
      expect(none).toEqual({ count: 0, byMode: { quick: 0, focused: 0, deep: 0 }, byStatus: { completed: 0, failed: 0 }, durationMs: { p50: 0, p90: 0, max: 0 } });
    });
  });

  describe('CSV export', () => {
    it('is RFC 4180 with the header of §14, one call a row, oldest first, formula cells defused', async () => {
      const account = await createAccount(world.t.app, world.t.outbox);
      await seedCalls(account.id, [
        { day: '2026-04-02', modelId: 'plain-model', repositoryName: 'octo/repo' },
        { day: '2026-04-01', modelId: '=HYPERLINK("http://evil.example","x")', repositoryName: '@evil/repo' },
        { day: '2026-04-03', modelId: '+1,2', repositoryName: '-2+3' },
        { day: '2026-04-04', modelId: '\tTAB', repositoryName: 'line\nbreak' },
      ]);
      const response = await get(account.cookie, '/usage/export.csv?from=2026-04-01&to=2026-04-04');
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(response.headers['content-disposition']).toBe('attachment; filename="usage-2026-04-01-to-2026-04-04.csv"');
      const body = response.body;
      expect(body.endsWith('\r\n')).toBe(true);
      const lines = body.slice(0, -2).split('\r\n');
      expect(lines[0]).toBe(CSV_HEADER);
      expect(lines.slice(1)).toEqual([
        `2026-04-01T12:00:00.000Z,chat,"'=HYPERLINK(""http://evil.example"",""x"")",platform,10,5,0.5,'@evil/repo,,40`,
        '2026-04-02T12:00:00.000Z,chat,plain-model,platform,10,5,0.5,octo/repo,,40',
        `2026-04-03T12:00:00.000Z,chat,"'+1,2",platform,10,5,0.5,'-2+3,,40`,
        `2026-04-04T12:00:00.000Z,chat,'\tTAB,platform,10,5,0.5,"line\nbreak",,40`,
      ]);
    });

    it('streams a range longer than one page, every row once', async () => {
      const account = await createAccount(world.t.app, world.t.outbox);
      // Four pages of 250, three calls a second: pages end in the middle of equal timestamps, the id breaks the tie.
      await world.t.app.db.execute(sql`
        insert into usage_records (user_id, at, kind, model_id, source, input_tokens, output_tokens, cost_usd, duration_ms)
        select ${account.id}, timestamptz '2026-05-01T00:00:00Z' + (n / 3) * interval '1 second', 'chat', 'bulk', 'platform', n, 0, 0, 1
        from generate_series(0, 999) as n`);
      const body = (await get(account.cookie, '/usage/export.csv?from=2026-05-01&to=2026-05-01')).body;
      const tokens = body.trimEnd().split('\r\n').slice(1).map((line) => Number(line.split(',')[4]));
      expect(tokens).toEqual(Array.from({ length: 1000 }, (_, index) => index));
    });
  });

  describe('errors', () => {
    let account: Account;
    beforeAll(async () => {
      account = await createAccount(world.t.app, world.t.outbox);
    });

    it.each([
      ['/usage/history?from=2026-13-01', 'querystring.from'],
      ['/usage/history?from=yesterday', 'querystring.from'],
      ['/usage/history?to=2026-02-30', 'querystring.to'],
      ['/usage/history?from=2026-03-02&to=2026-03-01', 'querystring.from'],
      ['/usage/history?from=2025-01-01&to=2026-01-02', 'querystring.to'],
      ['/usage/history?groupBy=month', 'querystring.groupBy'],
      ['/usage/reviews?from=2026-03-02&to=2026-03-01', 'querystring.from'],
      ['/usage/reviews?from=2024-01-01&to=2025-12-31', 'querystring.to'],
      ['/usage/export.csv?to=31-01-2026', 'querystring.to'],
      ['/usage/export.csv?from=2026-03-02&to=2026-03-01', 'querystring.from'],
    ])('%s is a 400 naming %s', async (url, path) => {
      const response = await get(account.cookie, url);
      expect(response.statusCode).toBe(400);
      const body = response.json<{ statusCode: number; error: string; message: string; details: Array<{ path: string; message: string }> }>();
      expect(body).toMatchObject({ statusCode: 400, error: 'Bad Request', message: expect.stringContaining(path) });
      expect(body.details.map((detail) => detail.path)).toContain(path);
    });
  });

  describe('security', () => {
    it.each(['/usage/history', '/usage/reviews', '/usage/export.csv'])('%s needs a session', async (url) => {
      const response = await get(undefined, url);
      expect(response.statusCode).toBe(401);
      expect(response.json()).toMatchObject({ statusCode: 401, error: 'Unauthorized' });
    });

    it('never counts another user’s calls or runs, and deleting the account deletes them', async () => {
      const owner = await createAccount(world.t.app, world.t.outbox);
      const other = await createAccount(world.t.app, world.t.outbox);
      await seedCalls(owner.id, [{ day: '2026-06-01', modelId: 'owner-model' }]);
      await seedCalls(other.id, [{ day: '2026-06-01', modelId: 'other-model' }]);
      const completedAt = new Date('2026-06-01T10:00:00.000Z');
      await world.t.app.db.insert(reviewRuns).values({ runId: crypto.randomUUID(), userId: other.id, mode: 'deep', status: 'completed', startedAt: completedAt, completedAt, durationMs: 5 });

      const range = '?from=2026-06-01&to=2026-06-01';
      expect((await history(owner.cookie, `${range}&groupBy=model`)).buckets.map((bucket) => bucket.key)).toEqual(['owner-model']);
      expect((await history(owner.cookie, `${range}&modelId=other-model`)).total.generations).toBe(0);
      expect((await get(owner.cookie, `/usage/reviews${range}`)).json()).toMatchObject({ count: 0 });
      const csv = (await get(owner.cookie, `/usage/export.csv${range}`)).body;
      expect(csv).toContain('owner-model');
      expect(csv).not.toContain('other-model');

      expect((await world.t.app.inject({ method: 'DELETE', url: '/users', headers: { cookie: other.cookie } })).statusCode).toBe(204);
      for (const table of [usageRecords, usageDaily, reviewRuns]) {
        expect(await world.t.app.db.select().from(table).where(eq(table.userId, other.id))).toEqual([]);
      }
    });
  });
});
