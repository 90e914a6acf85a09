import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pullRequests, webhookDeliveries } from '../../src/db/schema/index.js';
import { signInWithGitHub } from '../helpers/github-login.js';
import { SAMPLE_DIFF, scriptedReviewer, settledReview } from '../helpers/review-fixtures.js';
import { reviewWorld, type ReviewWorld } from '../helpers/review-world.js';
import { examplePayload, signedDelivery } from '../helpers/webhooks.js';

/**
 * decisions.md §7: GitHub payloads are data we must not lose. Characters PostgreSQL refuses in text
 * (NUL, unpaired surrogates) become U+FFFD in the columns derived from the payload; the raw payload
 * is kept as received.
 */
describe('a webhook payload holding characters PostgreSQL refuses', () => {
  let world: ReviewWorld;
  beforeAll(async () => {
    world = await reviewWorld();
    world.model.reply(scriptedReviewer());
  });
  afterAll(() => world.close());

  const storedPr = async (prId: number) => (await world.t.app.db.select().from(pullRequests).where(eq(pullRequests.prId, prId)))[0]!;

  it('is stored (200), listed with U+FFFD in its title, reviewed, and replayed by a manual re-review', async () => {
    const author = await signInWithGitHub(world.t.app, world.github);
    const payload = examplePayload({ authorId: author.githubId, title: 'Fix \u0000 parsing of \ud800 and \udc00' });
    payload.pull_request.head.ref = 'feature/\u0000nul';
    payload.pull_request.body = 'Body with \u0000 and a pair 😀 and a lone \ud83d';
    world.github.setDiff(payload.repository.full_name, payload.pull_request.number, SAMPLE_DIFF);
    const delivery = await signedDelivery(payload);
    expect(delivery.payload).toContain('\\u0000');

    const response = await world.t.app.inject(delivery);
    expect(response.statusCode, response.body).toBe(200);

    const list = await world.t.app.inject({ method: 'GET', url: '/pull-request/list', headers: { cookie: author.cookie } });
    expect(list.statusCode).toBe(200);
    expect(list.json()).toEqual([expect.objectContaining({ prId: payload.pull_request.id, title: 'Fix \ufffd parsing of \ufffd and \ufffd', headBranch: 'feature/\ufffdnul' })]);

    const stored = await storedPr(payload.pull_request.id);
    // The raw payload, as GitHub sent it: NUL and lone surrogates included.
    expect(stored.bodyBlob).toEqual(JSON.parse(delivery.payload as string));

    const review = await settledReview(world.t.app, author.cookie, payload.pull_request.id);
    expect(review).toMatchObject({ reviewStatus: 'completed', state: 'PROCESSING_COMPLETED', failureReason: null, prTitle: 'Fix \ufffd parsing of \ufffd and \ufffd' });

    const again = await world.t.app.inject({ method: 'POST', url: `/review/${review.id}`, headers: { cookie: author.cookie }, payload: { mode: 'quick' } });
    expect(again.statusCode, again.body).toBe(200);
    expect(await settledReview(world.t.app, author.cookie, payload.pull_request.id, { until: (info) => info.mode === 'quick' })).toMatchObject({ reviewStatus: 'completed', mode: 'quick' });
  });

  it('a redelivery of it answers 200 and changes nothing', async () => {
    const author = await signInWithGitHub(world.t.app, world.github);
    const payload = examplePayload({ authorId: author.githubId, title: 'NUL \u0000 title' });
    world.github.setDiff(payload.repository.full_name, payload.pull_request.number, SAMPLE_DIFF);
    const delivery = await signedDelivery(payload);
    expect((await world.t.app.inject(delivery)).statusCode).toBe(200);
    await settledReview(world.t.app, author.cookie, payload.pull_request.id);
    const before = await storedPr(payload.pull_request.id);
    const calls = world.model.completions().length;

    const redelivery = await world.t.app.inject(delivery);
    expect(redelivery.statusCode, redelivery.body).toBe(200);
    expect(await storedPr(payload.pull_request.id)).toEqual(before);
    const deliveries = await world.t.app.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.prId, payload.pull_request.id));
    expect(deliveries).toHaveLength(1);
    expect(world.model.completions().length).toBe(calls);
  });

  it('the longest repository name with a 100,000-character title (4-byte characters) is stored, listed and found', async () => {
    const author = await signInWithGitHub(world.t.app, world.github);
    // Every list index carries the repository name and the title's first 256 characters: even
    // these must fit in an index entry, or the delivery would fail.
    const title = `𝔘${'\u{1F680}'.repeat(99_999)}`;
    const payload = examplePayload({ authorId: author.githubId, title, repository: { id: 987_001, full_name: `o/${'\u{1D518}'.repeat(254)}` } });
    world.github.setDiff(payload.repository.full_name, payload.pull_request.number, SAMPLE_DIFF);
    const response = await world.t.app.inject(await signedDelivery(payload));
    expect(response.statusCode, response.body).toBe(200);
    expect((await storedPr(payload.pull_request.id)).title).toBe(title);
    const found = await world.t.app.inject({ method: 'GET', url: `/pull-request/list?search=${encodeURIComponent('𝔘🚀')}&repo=${encodeURIComponent(payload.repository.full_name)}`, headers: { cookie: author.cookie } });
    expect(found.json()).toEqual([expect.objectContaining({ prId: payload.pull_request.id, title })]);
  });

  it('an action holding NUL is stored as a non-reviewing action', async () => {
    const author = await signInWithGitHub(world.t.app, world.github);
    const payload = examplePayload({ authorId: author.githubId, action: 'opened' });
    (payload as { action: string }).action = 'opened\u0000';
    const response = await world.t.app.inject(await signedDelivery(payload));
    expect(response.statusCode, response.body).toBe(200);
    const [recorded] = await world.t.app.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.prId, payload.pull_request.id));
    expect(recorded).toMatchObject({ action: 'opened\ufffd', startsReview: false });
  });
});
