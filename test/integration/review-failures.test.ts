import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usage } from '../../src/db/schema/index.js';
import { ownGateway } from '../helpers/byok.js';
import { signInWithGitHub } from '../helpers/github-login.js';
import { reviewAnswer, SAMPLE_DIFF, SAMPLE_FINDINGS, scriptedReviewer, settledReview } from '../helpers/review-fixtures.js';
import { deliverPullRequest, reviewWorld, type ReviewWorld } from '../helpers/review-world.js';
import { examplePayload, signedDelivery } from '../helpers/webhooks.js';

describe('the review pipeline when things go wrong', () => {
  let world: ReviewWorld;
  beforeAll(async () => {
    world = await reviewWorld({ FREE_ALLOWANCE_USD: '0.05' });
    world.model.reply(scriptedReviewer());
  });
  afterAll(() => world.close());

  it('a model that fails twice and then answers still completes the review', async () => {
    const author = await signInWithGitHub(world.t.app, world.github);
    const before = world.model.completions().length;
    world.model.enqueue({ status: 500 }, { status: 503 });
    const payload = await deliverPullRequest(world, author, SAMPLE_DIFF);
    const review = await settledReview(world.t.app, author.cookie, payload.pull_request.id);
    expect(review.reviewStatus).toBe('completed');
    expect(world.model.completions().length - before).toBe(3);
  });

  it('a model answering with fenced, slightly broken JSON is parsed', async () => {
    const author = await signInWithGitHub(world.t.app, world.github);
    const answer = reviewAnswer(SAMPLE_FINDINGS).replace(/}$/, ',}');
    world.model.enqueue({ text: `Here is my review:\n\`\`\`json\n${answer}\n\`\`\`` });
    const payload = await deliverPullRequest(world, author, SAMPLE_DIFF);
    const review = await settledReview(world.t.app, author.cookie, payload.pull_request.id);
    expect(review.reviewStatus).toBe('completed');
    expect(review.reviewRawJSON!.comments.map((comment) => comment.line)).toEqual([3, 9]);
  });

  it('a model that never answers with a review fails it, with a clear reason, after its retries', async () => {
    const author = await signInWithGitHub(world.t.app, world.github);
    world.model.enqueue({ text: 'I am sorry, I cannot review code today.' }, { text: 'Still no.' });
    const payload = await deliverPullRequest(world, author, SAMPLE_DIFF);
    const review = await settledReview(world.t.app, author.cookie, payload.pull_request.id);
    expect(review).toMatchObject({ reviewStatus: 'failed', state: 'PROCESSING_FAILED', attemptNumber: 2 });
    expect(review.failureReason).toMatch(/The model's answer is not valid JSON/);
    const list = (await world.t.app.inject({ method: 'GET', url: '/pull-request/list', headers: { cookie: author.cookie } })).json<Array<{ status: string }>>();
    expect(list[0]?.status).toBe('failed');
  });

  it('the exhausted allowance fails the review with that reason; with a BYOK key a re-review succeeds', async () => {
    const author = await signInWithGitHub(world.t.app, world.github);
    await world.t.app.db.insert(usage).values({ userId: author.userId, inputCost: 0.05, outputCost: 0 });
    const payload = await deliverPullRequest(world, author, SAMPLE_DIFF);
    const refused = await settledReview(world.t.app, author.cookie, payload.pull_request.id);
    expect(refused.reviewStatus).toBe('failed');
    expect(refused.failureReason).toMatch(/free allowance .* is used up: add an API key/);
    expect(refused.attemptNumber).toBe(1);

    const { gateway } = await ownGateway(world.t.app, author.cookie, { apiKey: 'sk-own-gateway', models: [{ id: 'own-model', context_length: 16_000 }], reply: scriptedReviewer() });
    await world.t.app.inject({ method: 'POST', url: '/workspace/aiSettings', headers: { cookie: author.cookie }, payload: { focusedModeModel: 'own-model' } });
    expect((await world.t.app.inject({ method: 'POST', url: `/review/${payload.pull_request.id}`, headers: { cookie: author.cookie } })).statusCode).toBe(200);
    const review = await settledReview(world.t.app, author.cookie, payload.pull_request.id);
    expect(review.reviewStatus).toBe('completed');
    expect(gateway.completions()).toHaveLength(1);
    expect(gateway.completions()[0]!.headers.authorization).toBe('Bearer sk-own-gateway');
    const spent = (await world.t.app.inject({ method: 'GET', url: '/usage', headers: { cookie: author.cookie } })).json<{ utilizedCost: number }>();
    expect(spent.utilizedCost).toBe(0.05);
  });

  it('a model whose context cannot hold the prompt fails the review at once, saying so', async () => {
    const author = await signInWithGitHub(world.t.app, world.github);
    const { gateway } = await ownGateway(world.t.app, author.cookie, { apiKey: 'sk-small-model', models: [{ id: 'small-model', context_length: 4_000 }], reply: scriptedReviewer() });
    await world.t.app.inject({ method: 'POST', url: '/workspace/aiSettings', headers: { cookie: author.cookie }, payload: { focusedModeModel: 'small-model' } });
    const payload = await deliverPullRequest(world, author, SAMPLE_DIFF);
    const review = await settledReview(world.t.app, author.cookie, payload.pull_request.id);
    expect(review).toMatchObject({ reviewStatus: 'failed', attemptNumber: 1 });
    expect(review.failureReason).toMatch(/small-model has a context of 4000 tokens: too small to review this pull request/);
    expect(gateway.completions()).toHaveLength(0);
  });

  it('GitHub refusing the diff (no access) fails the review at once, saying why', async () => {
    const author = await signInWithGitHub(world.t.app, world.github);
    // No diff on the fake GitHub for this pull request: a 404, as for a private repository without access.
    const payload = examplePayload({ authorId: author.githubId, number: 4242 });
    expect((await world.t.app.inject(await signedDelivery(payload))).statusCode).toBe(200);
    const review = await settledReview(world.t.app, author.cookie, payload.pull_request.id);
    expect(review).toMatchObject({ reviewStatus: 'failed', attemptNumber: 1 });
    expect(review.failureReason).toMatch(/GitHub refused the pull request diff \(404 .*link GitHub/);
  });

  it('GitHub failing twice (502) and then answering still completes the review', async () => {
    const author = await signInWithGitHub(world.t.app, world.github);
    world.github.failDiffs = 2;
    const payload = await deliverPullRequest(world, author, SAMPLE_DIFF);
    const review = await settledReview(world.t.app, author.cookie, payload.pull_request.id);
    expect(review.reviewStatus).toBe('completed');
    expect(world.github.failDiffs).toBe(0);
  });
});
