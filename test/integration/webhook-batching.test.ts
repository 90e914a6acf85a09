import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pullRequests, reviews, webhookDeliveries } from '../../src/db/schema/index.js';
import { githubEnv, signInWithGitHub } from '../helpers/github-login.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { examplePayload, newPrId, signedDelivery, WEBHOOK_SECRET } from '../helpers/webhooks.js';
import { FakeGitHub } from '../fakes/fake-github.js';

describe('webhook intake under concurrency', () => {
  let github: FakeGitHub;
  let t: TestApp;
  let authorId: number;
  beforeAll(async () => {
    github = await new FakeGitHub().start();
    t = await createTestApp({ env: { ...githubEnv(github), GITHUB_WEBHOOK_SECRET: WEBHOOK_SECRET }, role: 'api' });
    authorId = (await signInWithGitHub(t.app, github)).githubId;
  });
  afterAll(async () => {
    await t.close();
    await github.stop();
  });

  it('stores a burst of distinct deliveries, every one of them', async () => {
    const payloads = Array.from({ length: 60 }, () => examplePayload({ authorId }));
    const responses = await Promise.all(payloads.map(async (payload) => t.app.inject(await signedDelivery(payload))));
    expect(responses.map((response) => response.statusCode)).toEqual(payloads.map(() => 200));
    for (const payload of payloads) {
      const [stored] = await t.app.db.select().from(pullRequests).where(eq(pullRequests.prId, payload.pull_request.id));
      expect(stored?.headSha).toBe(payload.pull_request.head.sha);
    }
  });

  it('a burst on one pull request: applied in order of updated_at, one review per new commit', async () => {
    const prId = newPrId();
    const pushes = Array.from({ length: 12 }, (_, i) =>
      examplePayload({ authorId, prId, action: 'synchronize', headSha: `sha-${i}`, updatedAt: new Date(Date.UTC(2025, 0, 1, 0, i)).toISOString() }),
    );
    // The same commit again, twice, under other delivery ids.
    const repeats = [pushes[11]!, pushes[11]!];
    const responses = await Promise.all([...pushes, ...repeats].map(async (payload) => t.app.inject(await signedDelivery(payload))));
    expect(responses.map((response) => response.statusCode)).toEqual(Array.from({ length: 14 }, () => 200));

    const [stored] = await t.app.db.select().from(pullRequests).where(eq(pullRequests.prId, prId));
    expect(stored?.headSha).toBe('sha-11');
    const [review] = await t.app.db.select().from(reviews).where(eq(reviews.prId, prId));
    expect(review?.headSha).toBe('sha-11');
    const deliveries = await t.app.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.prId, prId));
    expect(deliveries).toHaveLength(14);
    // Only deliveries that were newest when stored may start a review, and never twice for one commit.
    const started = deliveries.filter((delivery) => delivery.startsReview).map((delivery) => delivery.headSha);
    expect(new Set(started).size).toBe(started.length);
    expect(started).toContain('sha-11');
  });

  it('the same delivery id sent concurrently is stored once', async () => {
    const payload = examplePayload({ authorId });
    const delivery = await signedDelivery(payload, { deliveryId: 'concurrent-redelivery' });
    const responses = await Promise.all(Array.from({ length: 5 }, () => t.app.inject(delivery)));
    expect(responses.map((response) => response.statusCode)).toEqual([200, 200, 200, 200, 200]);
    expect(await t.app.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.deliveryId, 'concurrent-redelivery'))).toHaveLength(1);
  });
});

describe('the delivery relay', () => {
  it('enqueues a delivery that was stored but never enqueued (a stop between commit and enqueue)', async () => {
    const github = await new FakeGitHub().start();
    const t = await createTestApp({ env: { ...githubEnv(github), GITHUB_WEBHOOK_SECRET: WEBHOOK_SECRET }, workers: { relayIntervalMs: 50 } });
    try {
      const author = await signInWithGitHub(t.app, github);
      const payload = examplePayload({ authorId: author.githubId });
      await t.app.inject(await signedDelivery(payload, { deliveryId: 'stored-not-queued' }));
      await t.app.services.webhook.drained();
      // As if the process had stopped right after the commit: the job is gone, the mark too.
      await t.app.db.update(webhookDeliveries).set({ enqueuedAt: null, receivedAt: new Date(Date.now() - 60_000) }).where(eq(webhookDeliveries.deliveryId, 'stored-not-queued'));
      await expect.poll(async () => (await t.app.repos.deliveries.find('stored-not-queued'))?.enqueuedAt, { timeout: 10_000 }).not.toBeNull();
      expect(t.logs.join('')).toContain('relayed stored deliveries to the queue');
    } finally {
      await t.close();
      await github.stop();
    }
  });
});
