import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeGitHubApp } from '../fakes/fake-github-app.js';
import { FakeOpenAIChat } from '../fakes/fake-openai-chat.js';
import { cookieOf } from '../helpers/accounts.js';
import { appModel, appPullRequest, installationPayload, newRepo } from '../helpers/github-app-world.js';
import { githubUser, signInWithGitHubOverHttp } from '../helpers/github-login.js';
import { Outbox } from '../helpers/outbox.js';
import { SAMPLE_DIFF, SAMPLE_FINDINGS } from '../helpers/review-fixtures.js';
import { startProcessesApart, type ProcessesApart } from '../helpers/processes-apart.js';
import { signedHeaders } from '../helpers/webhooks.js';

/** How old a process's view of the stored App may be (GitHubAppRegistry's period). */
const STORED_APP_MAX_AGE_MS = 5_000;

/**
 * decisions.md §13 at scale: an API process and a worker process, both started with no GitHub App.
 * The operator creates it through the API; the worker, not restarted, publishes with it.
 */
describe.runIf(process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL)('the GitHub App created while API and worker processes run apart', () => {
  let github: FakeGitHubApp;
  let model: FakeOpenAIChat;
  let apart: ProcessesApart;

  beforeAll(async () => {
    github = await new FakeGitHubApp().start();
    model = await new FakeOpenAIChat().start();
    model.reply(appModel(SAMPLE_FINDINGS));
    apart = await startProcessesApart(
      'setup-roles',
      {
        PUBLIC_URL: 'https://review.example.com',
        GITHUB_URL: github.url,
        GITHUB_API_URL: github.url,
        PLATFORM_AI_BASE_URL: model.url,
        PLATFORM_MODELS: JSON.stringify([{ id: 'platform-a', name: 'A', contextLength: 32_000, inputPrice: 1, outputPrice: 2 }]),
      },
      { timeoutMs: 90_000 },
    );
  }, 120_000);
  afterAll(async () => {
    await apart?.stop();
    await model.stop();
    await github.stop();
  });

  it('the operator creates the App through the API, and the worker posts the review with it', async () => {
    const { api, worker, dataDir, prefix } = apart;
    const base = api.url!;
    const json = { 'content-type': 'application/json' };
    const email = `operator-${prefix.replaceAll(':', '')}@example.com`;
    expect((await fetch(`${base}/auth/signup`, { method: 'POST', headers: json, body: JSON.stringify({ name: 'Operator', email, password: 'a long enough password' }) })).status).toBe(201);
    const otp = await new Outbox(join(dataDir, 'outbox')).code(email);
    const verified = await fetch(`${base}/auth/verify-email`, { method: 'POST', headers: json, body: JSON.stringify({ email, otp }) });
    const operator = cookieOf(verified);

    const start = (await (await fetch(`${base}/admin/github-app/manifest`, { method: 'POST', headers: { cookie: operator } })).json()) as { url: string; manifest: unknown; state: string };
    const page = await (await fetch(start.url, { method: 'POST', body: new URLSearchParams({ manifest: JSON.stringify(start.manifest) }) })).text();
    const code = /name="code" value="([^"]+)"/.exec(page)![1]!;
    const callback = await fetch(`${base}/github/app-manifest/callback?code=${code}&state=${start.state}`, { headers: { cookie: operator }, redirect: 'manual' });
    expect(callback.status).toBe(302);
    const created = Date.now();

    const author = githubUser();
    const { cookie } = await signInWithGitHubOverHttp(base, github, author);
    const secret = github.manifests.credentials!.webhookSecret;
    const deliver = async (event: string, payload: unknown) => {
      const body = JSON.stringify(payload);
      return (await fetch(`${base}/webhook`, { method: 'POST', body, headers: await signedHeaders(body, { event, secret }) })).status;
    };
    const repo = newRepo();
    github.install(6301, [repo.full_name]);
    expect(await deliver('installation', installationPayload('created', 6301, author.id, [repo]))).toBe(200);

    // The worker reads the stored App at most this old: past it, it must be the new App's.
    await sleep(Math.max(0, created + STORED_APP_MAX_AGE_MS + 500 - Date.now()));
    const payload = appPullRequest(6301, repo, author.id, { headSha: 'e'.repeat(40), number: 3 });
    github.openPull(repo.full_name, 3, 'e'.repeat(40), SAMPLE_DIFF);
    expect(await deliver('pull_request', payload)).toBe(200);

    await expect
      .poll(
        async () => {
          const response = await fetch(`${base}/review/information/${payload.pull_request.id}`, { headers: { cookie } });
          return ((await response.json()) as Array<{ publication?: { state: string } }>)[0]?.publication?.state;
        },
        { timeout: 40_000, interval: 200 },
      )
      .toBe('published');
    expect(github.submittedReviews(repo.full_name, 3)).toHaveLength(1);
    expect(worker.output()).not.toContain(secret);
    expect(api.output()).not.toContain(secret);
  }, 90_000);
});
