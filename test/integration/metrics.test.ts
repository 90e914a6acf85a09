import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInWithGitHub } from '../helpers/github-login.js';
import { SAMPLE_DIFF, scriptedReviewer, settledReview } from '../helpers/review-fixtures.js';
import { deliverPullRequest, reviewWorld, type ReviewWorld } from '../helpers/review-world.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { examplePayload, signedDelivery } from '../helpers/webhooks.js';

const TOKEN = 'scraper-token-of-the-metrics-test';
const bearer = { authorization: `Bearer ${TOKEN}` };

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a Prometheus text exposition. */
function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (match === null) continue;
    const labels = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((label) => [label[1]!, label[2]!]));
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The sum of a family's samples whose labels include `labels`. */
const total = (samples: Sample[], name: string, labels: Record<string, string> = {}) =>
  samples.filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value)).reduce((sum, sample) => sum + sample.value, 0);

describe('GET /metrics', () => {
  describe('without METRICS_TOKEN', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp({ role: 'api' });
    });
    afterAll(() => t.close());

    it('does not exist (404), with or without a token', async () => {
      expect((await t.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(404);
      expect((await t.app.inject({ method: 'GET', url: '/metrics', headers: bearer })).statusCode).toBe(404);
    });
  });

  describe('with METRICS_TOKEN', () => {
    let world: ReviewWorld;
    const scrape = async () => {
      const response = await world.t.app.inject({ method: 'GET', url: '/metrics', headers: bearer });
      expect(response.statusCode).toBe(200);
      return parseExposition(response.body);
    };
    beforeAll(async () => {
      world = await reviewWorld({ METRICS_TOKEN: TOKEN });
      world.model.reply(scriptedReviewer());
    });
    afterAll(() => world.close());

    it('answers 401 without the bearer token, a wrong one, or another scheme; no session is needed', async () => {
      for (const authorization of [undefined, 'Bearer wrong', `Bearer ${TOKEN}x`, `Basic ${TOKEN}`, TOKEN]) {
        const response = await world.t.app.inject({ method: 'GET', url: '/metrics', headers: authorization === undefined ? {} : { authorization } });
        expect(response.statusCode, String(authorization)).toBe(401);
        expect(response.json()).toEqual({ statusCode: 401, error: 'Unauthorized', message: 'A valid metrics bearer token is required' });
      }
      const response = await world.t.app.inject({ method: 'GET', url: '/metrics', headers: bearer });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    });

    it('moves every family with a review, a failed review, a chat and webhooks', async () => {
      const before = await scrape();
      const author = await signInWithGitHub(world.t.app, world.github);

      // A review that completes, and one whose diff GitHub refuses (404: it fails at once).
      const reviewed = await deliverPullRequest(world, author, SAMPLE_DIFF, { title: 'Measured review' });
      expect((await settledReview(world.t.app, author.cookie, reviewed.pull_request.id)).reviewStatus).toBe('completed');
      const refused = examplePayload({ authorId: author.githubId, title: 'No diff on GitHub', number: 404_404 });
      expect((await world.t.app.inject(await signedDelivery(refused))).statusCode).toBe(200);
      expect((await settledReview(world.t.app, author.cookie, refused.pull_request.id)).reviewStatus).toBe('failed');
      // A redelivery, a ping, an event the service does not take, and one with a bad signature.
      expect((await world.t.app.inject(await signedDelivery(reviewed, { deliveryId: 'redelivered' }))).statusCode).toBe(200);
      expect((await world.t.app.inject(await signedDelivery(reviewed, { deliveryId: 'redelivered' }))).statusCode).toBe(200);
      expect((await world.t.app.inject(await signedDelivery({ zen: 'Keep it simple.' }, { event: 'ping' }))).statusCode).toBe(200);
      expect((await world.t.app.inject(await signedDelivery({}, { event: 'issues' }))).statusCode).toBe(422);
      expect((await world.t.app.inject(await signedDelivery(reviewed, { secret: 'not-the-secret' }))).statusCode).toBe(401);
      // A chat about the reviewed pull request, on the platform model.
      const chat = await world.t.app.inject({
        method: 'POST',
        url: '/conversation/chat',
        headers: { cookie: author.cookie },
        payload: { message: 'What does this change?', prId: reviewed.pull_request.id },
      });
      expect(chat.statusCode).toBe(200);

      const after = await scrape();
      const moved = (name: string, labels: Record<string, string> = {}) => total(after, name, labels) - total(before, name, labels);

      expect(moved('http_request_duration_seconds_count', { method: 'POST', route: '/webhook', status: '200' })).toBeGreaterThanOrEqual(4);
      expect(moved('http_request_duration_seconds_count', { method: 'POST', route: '/conversation/chat', status: '200' })).toBe(1);
      expect(moved('http_request_duration_seconds_count', { method: 'GET', route: '/review/information/:prId', status: '200' })).toBeGreaterThan(0);
      // The route's pattern is the label, never the URL with the id in it.
      expect(after.some((sample) => sample.labels.route?.includes(String(reviewed.pull_request.id)))).toBe(false);

      expect(moved('webhook_deliveries_total', { event: 'pull_request', outcome: 'review-started' })).toBe(2);
      expect(moved('webhook_deliveries_total', { event: 'pull_request', outcome: 'stored' })).toBe(1);
      expect(moved('webhook_deliveries_total', { event: 'pull_request', outcome: 'duplicate' })).toBe(1);
      expect(moved('webhook_deliveries_total', { event: 'ping', outcome: 'ping' })).toBe(1);
      expect(moved('webhook_deliveries_total', { event: 'other', outcome: 'unprocessable_entity' })).toBe(1);
      expect(moved('webhook_deliveries_total', { event: 'pull_request', outcome: 'unauthorized' })).toBe(1);

      expect(moved('reviews_finished_total', { outcome: 'completed', mode: 'focused' })).toBe(1);
      expect(moved('reviews_finished_total', { outcome: 'failed', mode: 'focused' })).toBe(1);
      for (const queue of ['unprocessedWebhookPayload', 'sanitizedPrPayload', 'extractedPrContent']) {
        expect(moved('queue_job_duration_seconds_count', { queue, outcome: 'completed' }), queue).toBeGreaterThanOrEqual(1);
        // Read when scraped: the queue is there, idle again.
        expect(after.some((sample) => sample.name === 'queue_jobs' && sample.labels.queue === queue && sample.labels.state === 'waiting'), queue).toBe(true);
      }
      expect(moved('queue_job_duration_seconds_count', { queue: 'sanitizedPrPayload', outcome: 'failed' })).toBe(1);
      expect(moved('queue_jobs_failed_total', { queue: 'sanitizedPrPayload' })).toBe(1);

      // The review, the chat and its title: tokens of every kind the fake reports, and what the platform cost.
      expect(moved('model_tokens_total', { provider: 'platform', model: 'platform-a', kind: 'input' })).toBeGreaterThan(0);
      expect(moved('model_tokens_total', { provider: 'platform', model: 'platform-a', kind: 'output' })).toBeGreaterThan(0);
      expect(moved('platform_cost_usd_total', { provider: 'platform', model: 'platform-a' })).toBeGreaterThan(0);

      // Publications are counted by the GitHub App's publishing, through this interface.
      world.t.app.metrics.publications.inc({ outcome: 'published' });
      expect(total(await scrape(), 'publications_total', { outcome: 'published' })).toBe(1);
    });
  });

  describe('a worker process (ROLE=worker) with METRICS_PORT', () => {
    let t: TestApp;
    let url: string;
    beforeAll(async () => {
      t = await createTestApp({ role: 'worker', env: { METRICS_TOKEN: TOKEN, METRICS_PORT: '0' } });
      url = `http://127.0.0.1:${t.app.metricsPort}`;
    });
    afterAll(() => t.close());

    it('serves /metrics on a listener of its own, with the same token rule', async () => {
      const response = await fetch(`${url}/metrics`, { headers: bearer });
      expect(response.status).toBe(200);
      const samples = parseExposition(await response.text());
      expect(samples.some((sample) => sample.name === 'queue_jobs' && sample.labels.queue === 'extractedPrContent')).toBe(true);
      expect(samples.some((sample) => sample.name === 'process_resident_memory_bytes')).toBe(true);
      expect((await fetch(`${url}/metrics`)).status).toBe(401);
      expect((await fetch(`${url}/metrics`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
      expect((await fetch(`${url}/other`, { headers: bearer })).status).toBe(404);
      expect((await fetch(`${url}/metrics`, { method: 'POST', headers: bearer })).status).toBe(404);
    });
  });
});
