import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pullRequests, reviewRuns, reviews } from '../../src/db/schema/index.js';
import { createAccount, type Account } from '../helpers/accounts.js';
import { seedUserData } from '../helpers/seed.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

describe('/review endpoints', () => {
  let t: TestApp;
  beforeAll(async () => {
    // API only: manual reviews stay queued, the tests look at what was asked, not at a model.
    t = await createTestApp({ role: 'api' });
  });
  afterAll(() => t.close());

  const get = (account: Account, url: string) => t.app.inject({ method: 'GET', url, headers: { cookie: account.cookie } });

  /** A pull request with a review row in the given state, through the repositories. */
  async function reviewed(account: Account, raw: unknown, startedAt: Date) {
    const seeded = await seedUserData(t.app.db, account.id);
    await t.app.db
      .update(reviews)
      .set({ status: 'completed', state: 'PROCESSING_COMPLETED', reviewRawJson: raw, reviewSummary: 'Looks fine.', startedAt, completedAt: new Date(startedAt.getTime() + 1000) })
      .where(eq(reviews.id, seeded.pullRequestId));
    return seeded;
  }

  const finding = (severity: string) => ({ file: 'a.ts', line: 1, endLine: 1, severity, confidence: 90, title: severity, comment: '', failureScenario: '', suggestedFix: '' });

  it('information by GitHub pull request id and by internal id, with pull-request metadata', async () => {
    const account = await createAccount(t.app, t.outbox);
    const seeded = await reviewed(account, { comments: [finding('MAJOR')] }, new Date());
    const byGitHubId = await get(account, `/review/information/${seeded.prId}`);
    const byInternalId = await get(account, `/review/information/${seeded.pullRequestId}`);
    expect(byGitHubId.statusCode).toBe(200);
    expect(byInternalId.json()).toEqual(byGitHubId.json());
    expect(byGitHubId.json()).toEqual([
      expect.objectContaining({
        id: seeded.pullRequestId,
        prId: seeded.prId,
        reviewStatus: 'completed',
        reviewSummary: 'Looks fine.',
        reviewRawJSON: { comments: [{ ...finding('MAJOR'), verdict: null }] },
        prTitle: 'Seeded pull request',
        prState: 'open',
        prIsDraft: false,
        prIsMerged: false,
        prHeadBranch: 'feature',
        prBaseBranch: 'main',
        state: 'PROCESSING_COMPLETED',
        failureReason: null,
        mode: 'focused',
      }),
    ]);
  });

  it('the dashboard lists the 3 most recent reviews, scored by the document’s rules in order', async () => {
    const account = await createAccount(t.app, t.outbox);
    const base = Date.now();
    await reviewed(account, { comments: [finding('CRITICAL')], confidence: { overall: 0.87 } }, new Date(base - 4000));
    await reviewed(account, { comments: [], confidence: {} }, new Date(base - 3000));
    await reviewed(account, { comments: [finding('CRITICAL'), finding('CRITICAL'), finding('CRITICAL'), finding('CRITICAL')] }, new Date(base - 2000));
    await reviewed(account, { comments: [finding('CRITICAL'), finding('MAJOR'), finding('MINOR'), finding('INFO')], confidence: { overall: 72 } }, new Date(base - 1000));
    const list = (await get(account, '/review/list')).json<Array<Record<string, unknown>>>();
    expect(list).toHaveLength(3);
    expect(list.map((item) => item.score)).toEqual([72, 50, 98]);
    expect(list[0]).toMatchObject({ criticalCount: 1, warningCount: 1, suggestionCount: 2, totalFindings: 4, status: 'completed', repoFullName: 'octo/repo', prNumber: 1, summary: 'Looks fine.' });
    expect(list[0]!.reviewedAt).toEqual(expect.any(String));
    expect(list[0]!.pullRequestId).toBe(list[0]!.prDbId);
  });

  it('a confidence of 0.87 scores 87, and a mix of findings scores 100 - 15 - 5 - 2, within 50..99', async () => {
    const account = await createAccount(t.app, t.outbox);
    await reviewed(account, { comments: [finding('CRITICAL')], confidence: { overall: 0.87 } }, new Date(Date.now() - 2000));
    await reviewed(account, { comments: [finding('CRITICAL'), finding('MAJOR'), finding('INFO')] }, new Date());
    expect((await get(account, '/review/list')).json<Array<{ score: number }>>().map((item) => item.score)).toEqual([78, 87]);
  });

  it('POST /review/:prId starts a manual run (mode optional), by path or body', async () => {
    const account = await createAccount(t.app, t.outbox);
    const seeded = await seedUserData(t.app.db, account.id);
    const before = (await t.app.queue.counts('sanitizedPrPayload')).waiting;
    const started = await t.app.inject({ method: 'POST', url: `/review/${seeded.prId}`, headers: { cookie: account.cookie }, payload: { mode: 'quick' } });
    expect(started.statusCode).toBe(200);
    expect(started.json()).toEqual({ message: 'Review started.' });
    const [info] = (await get(account, `/review/information/${seeded.prId}`)).json<Array<Record<string, unknown>>>();
    expect(info).toMatchObject({ reviewStatus: 'pending', state: 'WEBHOOK_RECEIVED', mode: 'quick', triggeredBy: 'manual' });
    const byBody = await t.app.inject({ method: 'POST', url: '/review', headers: { cookie: account.cookie }, payload: { prId: seeded.prId } });
    expect(byBody.statusCode).toBe(200);
    expect((await t.app.queue.counts('sanitizedPrPayload')).waiting).toBe(before + 2);
    const noSelector = await t.app.inject({ method: 'POST', url: '/review', headers: { cookie: account.cookie }, payload: {} });
    expect(noSelector.statusCode).toBe(400);
  });

  it('another user’s pull request is a 404 to read or review; bad ids are 400; no session is 401', async () => {
    const owner = await createAccount(t.app, t.outbox);
    const intruder = await createAccount(t.app, t.outbox);
    const seeded = await reviewed(owner, { comments: [] }, new Date());
    for (const selector of [seeded.prId, seeded.pullRequestId]) {
      expect((await get(intruder, `/review/information/${selector}`)).statusCode).toBe(404);
      expect((await t.app.inject({ method: 'POST', url: `/review/${selector}`, headers: { cookie: intruder.cookie } })).statusCode).toBe(404);
    }
    expect((await get(intruder, '/review/list')).json()).toEqual([]);
    expect((await get(owner, '/review/information/999999999')).statusCode).toBe(404);
    expect((await get(owner, '/review/information/not-an-id')).statusCode).toBe(400);
    expect((await t.app.inject({ method: 'POST', url: `/review/${seeded.prId}`, headers: { cookie: owner.cookie }, payload: { mode: 'thorough' } })).statusCode).toBe(400);
    for (const [method, url] of [['GET', '/review/list'], ['GET', `/review/information/${seeded.prId}`], ['POST', `/review/${seeded.prId}`]] as const) {
      expect((await t.app.inject({ method, url })).statusCode).toBe(401);
    }
  });

  it('a superseded run finishing writes nothing; the current run’s end sets the status and its review_runs row together', async () => {
    const account = await createAccount(t.app, t.outbox);
    const seeded = await seedUserData(t.app.db, account.id);
    const run = { pullRequestId: seeded.pullRequestId, prId: seeded.prId, userId: account.id, headSha: 'c'.repeat(40) };
    const stale = await t.app.repos.reviews.startManual(run);
    const current = await t.app.repos.reviews.startManual(run);
    const state = async () => ({
      reviewStatus: (await t.app.db.select({ status: pullRequests.reviewStatus }).from(pullRequests).where(eq(pullRequests.id, seeded.pullRequestId)))[0]!.status,
      runs: await t.app.db.select({ runId: reviewRuns.runId, status: reviewRuns.status, userId: reviewRuns.userId }).from(reviewRuns).where(eq(reviewRuns.reviewId, seeded.pullRequestId)),
    });

    expect(await t.app.repos.reviews.fail(seeded.pullRequestId, stale, 'stale', 1)).toBe(false);
    expect(await state()).toEqual({ reviewStatus: 'pending', runs: [] });

    expect(await t.app.repos.reviews.fail(seeded.pullRequestId, current, 'model down', 1)).toBe(true);
    expect(await state()).toEqual({ reviewStatus: 'failed', runs: [{ runId: current, status: 'failed', userId: account.id }] });
    expect(await t.app.repos.reviews.fail(seeded.pullRequestId, current, 'again', 2)).toBe(false);
    expect((await state()).runs).toHaveLength(1);
  });
});
