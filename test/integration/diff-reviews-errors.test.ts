import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usage } from '../../src/db/schema/index.js';
import { createAccount } from '../helpers/accounts.js';
import { bearer, createToken } from '../helpers/api-tokens.js';
import { PRICE_DIFF, PRICE_FINDING, postDiff, settledDiffReview } from '../helpers/diff-reviews.js';
import { scriptedReviewer } from '../helpers/review-fixtures.js';
import { reviewWorld, type ReviewWorld } from '../helpers/review-world.js';

describe('diff reviews: refused requests and failed reviews', () => {
  let world: ReviewWorld;
  let headers: Record<string, string>;
  beforeAll(async () => {
    world = await reviewWorld();
    world.model.reply(scriptedReviewer([PRICE_FINDING]));
    const account = await createAccount(world.t.app, world.t.outbox);
    headers = bearer((await createToken(world.t.app, account.cookie)).token);
  });
  afterAll(() => world.close());

  const post = (payload: unknown, extra: Record<string, string> = headers) => world.t.app.inject({ method: 'POST', url: '/review/diff', headers: extra, payload: payload as object });

  it('validates the body: 400 with details, nothing queued', async () => {
    for (const [payload, path] of [
      [{}, 'diff'],
      [{ diff: '   ' }, 'diff'],
      [{ diff: 'just some words, no diff' }, 'diff'],
      [{ diff: PRICE_DIFF, mode: 'thorough' }, 'mode'],
      [{ diff: PRICE_DIFF, repository: 'no-slash' }, 'repository'],
      [{ diff: PRICE_DIFF, files: [{ path: 'a.ts' }] }, 'files'],
      [{ diff: PRICE_DIFF, unknown: true }, ''],
      [{ diff: PRICE_DIFF, files: Array.from({ length: 2_001 }, (_, i) => ({ path: `f${i}.ts`, content: '' })) }, 'files'],
    ] as const) {
      const response = await post(payload);
      expect(response.statusCode, JSON.stringify(payload).slice(0, 80)).toBe(400);
      expect(response.json()).toMatchObject({ statusCode: 400, error: 'Bad Request', message: expect.any(String) });
      expect(JSON.stringify(response.json<{ details?: unknown }>().details ?? [])).toContain(path);
    }
    expect((await world.t.app.inject({ method: 'GET', url: '/review/diff', headers })).json<{ items: unknown[] }>().items).toEqual([]);
  });

  it('answers 401 without credentials, 404 for an unknown review, 400 for a malformed id or cursor', async () => {
    expect((await post({ diff: PRICE_DIFF }, {})).statusCode).toBe(401);
    expect((await world.t.app.inject({ method: 'GET', url: '/review/diff' })).statusCode).toBe(401);
    const unknown = '00000000-0000-4000-8000-000000000000';
    expect((await world.t.app.inject({ method: 'GET', url: `/review/diff/${unknown}`, headers })).statusCode).toBe(404);
    expect((await world.t.app.inject({ method: 'GET', url: `/review/diff/${unknown}/events`, headers })).statusCode).toBe(404);
    expect((await world.t.app.inject({ method: 'GET', url: '/review/diff/not-a-uuid', headers })).statusCode).toBe(400);
    expect((await world.t.app.inject({ method: 'GET', url: '/review/diff?cursor=garbage', headers })).statusCode).toBe(400);
  });

  it('a body over 8 MiB is 413; one over the usual 1 MiB is accepted', async () => {
    const big = 'x'.repeat(1_500_000);
    const reviewId = await postDiff(world.t.app, headers, { diff: PRICE_DIFF, files: [{ path: 'big.txt', content: big }] });
    expect((await settledDiffReview(world.t.app, headers, reviewId)).status).toBe('completed');
    const huge = await post({ diff: PRICE_DIFF, files: [{ path: 'huge.txt', content: 'x'.repeat(9 * 1024 * 1024) }] });
    expect(huge.statusCode).toBe(413);
  });

  it('a verdict on an unknown finding is 404; a bad verdict is 400', async () => {
    const reviewId = await postDiff(world.t.app, headers, { diff: PRICE_DIFF });
    await settledDiffReview(world.t.app, headers, reviewId);
    expect((await world.t.app.inject({ method: 'PATCH', url: `/review/diff/${reviewId}/findings/nope`, headers, payload: { verdict: 'wrong' } })).statusCode).toBe(404);
    expect((await world.t.app.inject({ method: 'PATCH', url: `/review/diff/${reviewId}/findings/nope`, headers, payload: { verdict: 'meh' } })).statusCode).toBe(400);
  });

  it('orgId of an organization the caller is not a member of is 404, and nothing is queued', async () => {
    const response = await post({ diff: PRICE_DIFF, orgId: '00000000-0000-4000-8000-000000000001' });
    expect(response.statusCode).toBe(404);
  });

  it('a model that keeps failing fails the review with its reason, in the state and the events', async () => {
    world.model.enqueue({ status: 500, message: 'down' }, { status: 500, message: 'down' }, { status: 500, message: 'down' }, { status: 500, message: 'down' }, { status: 500, message: 'down' }, { status: 500, message: 'down' });
    const reviewId = await postDiff(world.t.app, headers, { diff: PRICE_DIFF });
    const state = await settledDiffReview(world.t.app, headers, reviewId);
    expect(state).toMatchObject({ reviewId, status: 'failed', error: expect.any(String) });
    expect(state.review).toBeUndefined();
    const events = await world.t.app.inject({ method: 'GET', url: `/review/diff/${reviewId}/events`, headers });
    const lines = events.body.trim().split('\n').map((line) => JSON.parse(line) as { type: string; error?: string });
    expect(lines.at(-1)).toEqual({ type: 'failed', error: state.error });
  });

  it('no model the user may use (allowance spent) fails at once, not after retries', async () => {
    const spender = await createAccount(world.t.app, world.t.outbox);
    const spent = bearer((await createToken(world.t.app, spender.cookie)).token);
    await world.t.app.db.insert(usage).values({ userId: spender.id, inputCost: 1_000 }).onConflictDoUpdate({ target: usage.userId, set: { inputCost: 1_000 } });
    const reviewId = await postDiff(world.t.app, spent, { diff: PRICE_DIFF });
    const state = await settledDiffReview(world.t.app, spent, reviewId);
    expect(state).toMatchObject({ status: 'failed', error: expect.stringContaining('allowance') });
  });
});
