import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeGitHub } from '../fakes/fake-github.js';
import { FakeOpenAIChat } from '../fakes/fake-openai-chat.js';
import { githubEnv, signInWithGitHubOverHttp } from '../helpers/github-login.js';
import { SAMPLE_DIFF, scriptedReviewer } from '../helpers/review-fixtures.js';
import { startOneProcess, startProcessesApart, type ProcessesApart } from '../helpers/processes-apart.js';
import { examplePayload, signedHeaders, WEBHOOK_SECRET } from '../helpers/webhooks.js';

/**
 * At scale: an API process and a worker process, apart, on one PostgreSQL and one Redis. A webhook
 * accepted by the API is reviewed by the worker; the API never runs a job, the worker never listens.
 */
describe.runIf(process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL)('API and worker processes apart', () => {
  let github: FakeGitHub;
  let model: FakeOpenAIChat;
  let apart: ProcessesApart;

  beforeAll(async () => {
    github = await new FakeGitHub().start();
    model = await new FakeOpenAIChat().start();
    model.reply(scriptedReviewer());
    apart = await startProcessesApart('roles', {
      GITHUB_WEBHOOK_SECRET: WEBHOOK_SECRET,
      ...githubEnv(github),
      PLATFORM_AI_BASE_URL: model.url,
      PLATFORM_MODELS: JSON.stringify([{ id: 'platform-a', name: 'A', contextLength: 32_000, inputPrice: 1, outputPrice: 2 }]),
    });
  }, 60_000);
  afterAll(async () => {
    await apart?.stop();
    await model.stop();
    await github.stop();
  });

  it('the worker reviews what the API accepted, and both shut down cleanly', async () => {
    const { api, worker } = apart;
    expect(worker.url).toBeUndefined();
    await reviewedOverHttp(api.url!, github, 'roles-1');
    expect(worker.output()).not.toContain('Server listening');
    expect(await api.stop()).toBe(0);
    expect(await worker.stop()).toBe(0);
  }, 60_000);
});

/**
 * One `ROLE=all` process on PostgreSQL + Redis: the API on the main thread, the workers in a thread
 * of their own (src/workers/worker-thread.ts), so reviews never hold the API's event loop.
 */
describe.runIf(process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL)('ROLE=all on PostgreSQL and Redis', () => {
  const METRICS_TOKEN = 'metrics-token-0123456789';

  it('reviews in its worker thread, counts the thread\'s jobs in /metrics, and shuts down cleanly', { timeout: 90_000 }, async () => {
    const github = await new FakeGitHub().start();
    const model = await new FakeOpenAIChat().start();
    model.reply(scriptedReviewer());
    const one = await startOneProcess('one-process', {
      GITHUB_WEBHOOK_SECRET: WEBHOOK_SECRET,
      METRICS_TOKEN,
      ...githubEnv(github),
      PLATFORM_AI_BASE_URL: model.url,
      PLATFORM_MODELS: JSON.stringify([{ id: 'platform-a', name: 'A', contextLength: 32_000, inputPrice: 1, outputPrice: 2 }]),
    });
    const { server } = one;
    try {
      expect(server.output()).toContain('"workers":"thread"');
      await reviewedOverHttp(server.url!, github, 'one-process-1');
      expect(server.output()).toContain('worker thread ready');

      // The review ran in the thread; the API's scrape sums its counts with the main thread's. The
      // job's duration is counted when its handler returns, a moment after the review is stored.
      const scrapeMetrics = async () => (await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
      await expect.poll(scrapeMetrics, { timeout: 10_000 }).toMatch(/queue_job_duration_seconds_count\{queue="extractedPrContent",outcome="completed"\} 1\b/);
      const scrape = await scrapeMetrics();
      expect(scrape).toMatch(/reviews_finished_total\{outcome="completed",mode="[a-z]+"\} 1\b/);
      expect(scrape).toMatch(/http_request_duration_seconds_count\{method="POST",route="\/webhook",status="200"\} 1\b/);
      // The queue depths are read once, by the scraping thread.
      expect(scrape.match(/^queue_jobs\{queue="extractedPrContent",state="waiting"\}/gm)).toHaveLength(1);

      expect(await server.stop()).toBe(0);
      expect(server.output()).not.toContain('the worker thread ended');
    } finally {
      await one.stop();
      await model.stop();
      await github.stop();
    }
  });
});

/** Signs the author in, delivers a signed pull request to `url` and waits until its review has completed. */
async function reviewedOverHttp(url: string, github: FakeGitHub, deliveryId: string): Promise<void> {
  const { githubId, cookie } = await signInWithGitHubOverHttp(url, github);
  const payload = examplePayload({ authorId: githubId });
  github.setDiff(payload.repository.full_name, payload.pull_request.number, SAMPLE_DIFF);
  const body = JSON.stringify(payload);
  const delivered = await fetch(`${url}/webhook`, { method: 'POST', body, headers: await signedHeaders(body, { deliveryId }) });
  expect(delivered.status).toBe(200);
  await expect
    .poll(
      async () => {
        const response = await fetch(`${url}/review/information/${payload.pull_request.id}`, { headers: { cookie } });
        return ((await response.json()) as Array<{ reviewStatus: string }>)[0]?.reviewStatus;
      },
      { timeout: 30_000, interval: 100 },
    )
    .toBe('completed');
}
