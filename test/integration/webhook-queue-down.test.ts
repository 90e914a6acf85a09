import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { githubEnv, signInWithGitHub } from '../helpers/github-login.js';
import { freePort } from '../helpers/net.js';
import { DisposableRedis } from '../helpers/redis-server.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { examplePayload, signedDelivery, WEBHOOK_SECRET } from '../helpers/webhooks.js';
import { FakeGitHub } from '../fakes/fake-github.js';

/**
 * Nothing accepted is lost: with Redis really stopped, a delivery is still stored and answered
 * 200, and the relay enqueues it once Redis is back. Runs where BullMQ is the queue.
 */
describe.runIf(process.env.TEST_REDIS_URL)('webhook: the queue is down', () => {
  let github: FakeGitHub;
  let redis: DisposableRedis;
  let t: TestApp;
  let authorId: number;

  beforeAll(async () => {
    github = await new FakeGitHub().start();
    redis = new DisposableRedis(await freePort());
    await redis.start();
    t = await createTestApp({ env: { ...githubEnv(github), GITHUB_WEBHOOK_SECRET: WEBHOOK_SECRET, REDIS_URL: redis.url }, workers: { relayIntervalMs: 100 } });
    authorId = (await signInWithGitHub(t.app, github)).githubId;
  });
  afterAll(async () => {
    await t.close();
    await redis.stop();
    await github.stop();
  });

  it('stores and answers 200 while Redis is stopped, and the relay enqueues once it is back', async () => {
    await redis.stop();
    const deliveryId = 'queue-down-1';
    const started = Date.now();
    const response = await t.app.inject(await signedDelivery(examplePayload({ authorId }), { deliveryId }));
    expect(response.statusCode).toBe(200);
    expect(Date.now() - started).toBeLessThan(5_000);

    const stored = await t.app.repos.deliveries.find(deliveryId);
    expect(stored).toMatchObject({ startsReview: true, enqueuedAt: null });

    await redis.start();
    await expect.poll(async () => (await t.app.repos.deliveries.find(deliveryId))?.enqueuedAt, { timeout: 15_000, interval: 100 }).not.toBeNull();

    // The job travels on: the review leaves WEBHOOK_RECEIVED (this fake GitHub has no diff, so it
    // ends failed with GitHub's refusal, which is this test's proof that the pipeline got it).
    await expect
      .poll(async () => (await t.app.repos.reviews.runOfDelivery(deliveryId))?.review.failureReason, { timeout: 15_000, interval: 100 })
      .toMatch(/GitHub refused the pull request diff/);
  });
});
