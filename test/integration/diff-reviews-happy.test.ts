import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usageRecords } from '../../src/db/schema/index.js';
import type { ChatRequest } from '../fakes/fake-openai-chat.js';
import { createAccount } from '../helpers/accounts.js';
import { bearer, createToken } from '../helpers/api-tokens.js';
import { PRICE_DIFF, PRICE_FILES, PRICE_FINDING, postDiff, settledDiffReview } from '../helpers/diff-reviews.js';
import { reviewAnswer, scriptedReviewer } from '../helpers/review-fixtures.js';
import { reviewWorld, type ReviewWorld } from '../helpers/review-world.js';

const userText = (request: ChatRequest) =>
  request.body.messages
    .filter((message) => message.role === 'user')
    .map((message) => (typeof message.content === 'string' ? message.content : JSON.stringify(message.content)))
    .join('\n');

describe('diff reviews: a diff sent with a token, reviewed by the engine (decisions.md §17)', () => {
  let world: ReviewWorld;
  beforeAll(async () => {
    world = await reviewWorld();
    world.model.reply(scriptedReviewer([PRICE_FINDING]));
  });
  afterAll(() => world.close());

  const signedUp = async () => {
    const account = await createAccount(world.t.app, world.t.outbox);
    const { token } = await createToken(world.t.app, account.cookie);
    return { account, headers: bearer(token) };
  };

  it('reviews the diff with the files sent as code context, and answers the review as a pull request’s', async () => {
    const { account, headers } = await signedUp();
    const before = world.model.completions().length;
    const reviewId = await postDiff(world.t.app, headers, { diff: PRICE_DIFF, files: PRICE_FILES, title: 'Price total', repository: 'acme/shop' });
    const state = await settledDiffReview(world.t.app, headers, reviewId);
    expect(state).toMatchObject({ reviewId, status: 'completed' });
    expect(state.error).toBeUndefined();
    const review = state.review!;
    expect(review.reviewRawJSON.comments).toEqual([expect.objectContaining({ id: expect.any(String), file: 'src/price.ts', line: 4, severity: 'MAJOR', title: PRICE_FINDING.title, verdict: null })]);
    expect(review.score).toBe(80);
    expect(review.skippedFiles).toEqual([]);
    expect(review.configProblems).toEqual([]);
    expect(review.coverage).toMatchObject({ files: 1, reviewableFiles: 1 });
    expect(review.reviewSummary).toEqual(expect.any(String));
    expect(review.reviewRawJSON.context).toMatchObject({ scopes: 1, definitions: 1, snapshot: 'files' });

    // The model saw the diff, the title, and the imported file's definition from the files sent.
    const calls = world.model.completions().slice(before);
    expect(calls).toHaveLength(1);
    const prompt = userText(calls[0]!);
    expect(prompt).toContain('Title: Price total');
    expect(prompt).toContain('-  return net + taxOf(net);');
    expect(prompt).toContain('# Code around the change (read-only context)');
    expect(prompt).toContain('VAT_RATE_MARKER');

    // Charged and recorded as a review without a pull request.
    const records = await world.t.app.db.select().from(usageRecords).where(eq(usageRecords.userId, account.id));
    expect(records.map((record) => ({ kind: record.kind, pullRequestId: record.pullRequestId, repositoryName: record.repositoryName }))).toEqual([{ kind: 'review', pullRequestId: null, repositoryName: 'acme/shop' }]);
  });

  it('streams NDJSON progress per chunk then the review, replaying what came before, and ends', async () => {
    const { headers } = await signedUp();
    const reviewId = await postDiff(world.t.app, headers, { diff: PRICE_DIFF });
    const settled = await settledDiffReview(world.t.app, headers, reviewId);
    const response = await world.t.app.inject({ method: 'GET', url: `/review/diff/${reviewId}/events`, headers });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toContain('application/x-ndjson');
    const events = response.body
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string });
    expect(events).toEqual([
      { type: 'progress', done: 1, total: 1 },
      { type: 'completed', review: settled.review },
    ]);
  });

  it('a session works too; the list is newest first with a cursor', async () => {
    const account = await createAccount(world.t.app, world.t.outbox);
    const headers = { cookie: account.cookie };
    const first = await postDiff(world.t.app, headers, { diff: PRICE_DIFF, title: 'first', mode: 'quick' });
    await settledDiffReview(world.t.app, headers, first);
    const ids = [first];
    for (let i = 0; i < 20; i++) ids.push(await postDiff(world.t.app, headers, { diff: PRICE_DIFF, title: `n${i}`, repository: 'acme/shop' }));
    const page = await world.t.app.inject({ method: 'GET', url: '/review/diff', headers });
    expect(page.statusCode).toBe(200);
    const body = page.json<{ items: Array<{ reviewId: string; status: string; title: string; repository: string | null; createdAt: string }>; nextCursor: string | null }>();
    expect(body.items).toHaveLength(20);
    expect(body.items[0]).toEqual({ reviewId: ids[20], status: expect.stringMatching(/^(queued|running|completed)$/), title: 'n19', repository: 'acme/shop', createdAt: expect.any(String) });
    expect(body.nextCursor).toEqual(expect.any(String));
    const next = await world.t.app.inject({ method: 'GET', url: `/review/diff?cursor=${body.nextCursor}`, headers });
    expect(next.json()).toEqual({ items: [{ reviewId: first, status: 'completed', title: 'first', repository: null, createdAt: expect.any(String) }], nextCursor: null });
    for (const id of ids.slice(1)) await settledDiffReview(world.t.app, headers, id);
  });

  it('verdicts teach the repository’s learnings: the next review’s prompt has the note and drops the rejected finding', async () => {
    const { headers } = await signedUp();
    const reviewId = await postDiff(world.t.app, headers, { diff: PRICE_DIFF, files: PRICE_FILES, repository: 'acme/learning' });
    const { review } = await settledDiffReview(world.t.app, headers, reviewId);
    const findingId = review!.reviewRawJSON.comments[0]!.id;
    const verdict = await world.t.app.inject({ method: 'PATCH', url: `/review/diff/${reviewId}/findings/${findingId}`, headers, payload: { verdict: 'wrong', note: 'Prices here are tax-inclusive: subtracting is right' } });
    expect(verdict.statusCode, verdict.body).toBe(204);
    expect((await settledDiffReview(world.t.app, headers, reviewId)).review!.reviewRawJSON.comments[0]!.verdict).toBe('wrong');

    const learnings = await world.t.app.inject({ method: 'GET', url: '/review/learnings?repo=acme/learning', headers });
    expect(learnings.json()).toEqual([expect.objectContaining({ repositoryName: 'acme/learning', note: 'Prices here are tax-inclusive: subtracting is right', findingTitle: PRICE_FINDING.title })]);

    const before = world.model.completions().length;
    const again = await postDiff(world.t.app, headers, { diff: PRICE_DIFF, repository: 'acme/learning' });
    const second = await settledDiffReview(world.t.app, headers, again);
    expect(JSON.stringify(world.model.completions()[before]!.body.messages)).toContain('Prices here are tax-inclusive: subtracting is right');
    expect(second.review!.reviewRawJSON.comments).toEqual([]);
    expect(second.review!.reviewRawJSON.droppedFindings).toMatchObject({ suppressed: 1 });
  });

  it('without a repository, a verdict stays on the review and teaches nothing', async () => {
    const { headers } = await signedUp();
    const reviewId = await postDiff(world.t.app, headers, { diff: PRICE_DIFF });
    const { review } = await settledDiffReview(world.t.app, headers, reviewId);
    const findingId = review!.reviewRawJSON.comments[0]!.id;
    const verdict = await world.t.app.inject({ method: 'PATCH', url: `/review/diff/${reviewId}/findings/${findingId}`, headers, payload: { verdict: 'wrong', note: 'Not a bug' } });
    expect(verdict.statusCode).toBe(204);
    expect((await settledDiffReview(world.t.app, headers, reviewId)).review!.reviewRawJSON.comments[0]!.verdict).toBe('wrong');
    expect((await world.t.app.inject({ method: 'GET', url: '/review/learnings', headers })).json()).toEqual([]);
  });

  it('takes a diff without `diff --git` headers', async () => {
    const { headers } = await signedUp();
    const bare = PRICE_DIFF.slice(PRICE_DIFF.indexOf('--- a/'));
    const reviewId = await postDiff(world.t.app, headers, { diff: bare });
    const state = await settledDiffReview(world.t.app, headers, reviewId);
    expect(state.status).toBe('completed');
    expect(state.review!.reviewRawJSON.comments).toEqual([expect.objectContaining({ file: 'src/price.ts', line: 4 })]);
  });

  it('applies the .ai-review.yml sent: its mode, its exclusions and its problems', async () => {
    const { headers } = await signedUp();
    world.model.enqueue({ text: reviewAnswer([]) });
    const reviewId = await postDiff(world.t.app, headers, { diff: PRICE_DIFF, config: 'reviews:\n  mode: quick\n  bogus: 1\n' });
    const { review } = await settledDiffReview(world.t.app, headers, reviewId);
    expect(review!.configProblems).toEqual([expect.objectContaining({ line: expect.any(Number), message: expect.stringContaining('bogus') })]);
  });
});
