import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeGitHub } from '../fakes/fake-github.js';
import { FakeOpenAIChat } from '../fakes/fake-openai-chat.js';
import { githubEnv, signInWithGitHubOverHttp } from '../helpers/github-login.js';
import { SAMPLE_DIFF, scriptedReviewer } from '../helpers/review-fixtures.js';
import { startProcessesApart, type ProcessesApart } from '../helpers/processes-apart.js';
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
    const { githubId, cookie } = await signInWithGitHubOverHttp(api.url!, github);

    const payload = examplePayload({ authorId: githubId });
    github.setDiff(payload.repository.full_name, payload.pull_request.number, SAMPLE_DIFF);
    const body = JSON.stringify(payload);
    const delivered = await fetch(`${api.url}/webhook`, { method: 'POST', body, headers: await signedHeaders(body, { deliveryId: 'roles-1' }) });
    expect(delivered.status).toBe(200);

    await expect
      .poll(
        async () => {
          const response = await fetch(`${api.url}/review/information/${payload.pull_request.id}`, { headers: { cookie } });
          return ((await response.json()) as Array<{ reviewStatus: string }>)[0]?.reviewStatus;
        },
        { timeout: 30_000, interval: 100 },
      )
      .toBe('completed');
    expect(worker.output()).not.toContain('Server listening');
    expect(await api.stop()).toBe(0);
    expect(await worker.stop()).toBe(0);
  }, 60_000);
});
