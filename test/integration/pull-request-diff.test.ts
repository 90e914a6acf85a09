import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../helpers/accounts.js';
import { FakeGitHub } from '../fakes/fake-github.js';
import { githubEnv, signInWithGitHub, type GitHubSignIn } from '../helpers/github-login.js';
import { SAMPLE_DIFF } from '../helpers/review-fixtures.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { examplePayload, signedDelivery, WEBHOOK_SECRET } from '../helpers/webhooks.js';

let nextNumber = 1_000 + Math.floor(Math.random() * 1_000_000);

/** decisions.md §9: `GET /pull-request/diff/:prId`, the diff the review page shows. */
describe('GET /pull-request/diff/:prId', () => {
  let github: FakeGitHub;
  let t: TestApp;
  let author: GitHubSignIn;
  beforeAll(async () => {
    github = await new FakeGitHub().start();
    // The API only: no worker reads (and caches) the diffs before the endpoint does.
    t = await createTestApp({ env: { ...githubEnv(github), GITHUB_WEBHOOK_SECRET: WEBHOOK_SECRET }, role: 'api' });
    author = await signInWithGitHub(t.app, github);
  });
  afterAll(async () => {
    await t.close();
    await github.stop();
  });

  /** A pull request stored by a webhook, whose diff the fake GitHub serves but nobody has read yet. */
  async function storedPullRequest(diff = SAMPLE_DIFF) {
    const payload = examplePayload({ authorId: author.githubId, number: nextNumber++ });
    github.setDiff(payload.repository.full_name, payload.pull_request.number, diff);
    // Stored without the pipeline reading the diff: the intake only.
    const response = await t.app.inject(await signedDelivery(payload));
    expect(response.statusCode).toBe(200);
    const pr = await t.app.repos.pullRequests.findOwnedBySelector(author.userId, payload.pull_request.id);
    expect(pr).toBeDefined();
    return { payload, pr: pr! };
  }

  const get = (prId: string | number, cookie = author.cookie) => t.app.inject({ method: 'GET', url: `/pull-request/diff/${prId}`, headers: { cookie } });

  it('answers the diff as text/plain, by GitHub’s id or the internal id', async () => {
    const { payload, pr } = await storedPullRequest();
    const byGitHubId = await get(payload.pull_request.id);
    expect(byGitHubId.statusCode).toBe(200);
    expect(byGitHubId.headers['content-type']).toMatch(/^text\/plain/);
    expect(byGitHubId.body).toBe(SAMPLE_DIFF);
    const byInternalId = await get(pr.id);
    expect(byInternalId.body).toBe(SAMPLE_DIFF);
  });

  it('reads GitHub once, with the author’s token, then serves the cached diff', async () => {
    const { payload } = await storedPullRequest();
    const path = `/repos/${payload.repository.full_name}/pulls/${payload.pull_request.number}`;
    const reads = () => github.requests.filter((request) => request.path === path);
    expect((await get(payload.pull_request.id)).body).toBe(SAMPLE_DIFF);
    expect(reads()).toHaveLength(1);
    expect(reads()[0]!.headers.authorization).toMatch(/^(Bearer|token) gho_/);
    github.setDiff(payload.repository.full_name, payload.pull_request.number, 'changed on GitHub');
    expect((await get(payload.pull_request.id)).body).toBe(SAMPLE_DIFF);
    expect(reads()).toHaveLength(1);
  });

  it('answers 404 for an unknown pull request and for a malformed id', async () => {
    expect((await get(987_654_321_012)).statusCode).toBe(404);
    expect((await get('not-an-id')).statusCode).toBe(404);
    expect((await get('00000000-0000-4000-8000-000000000000')).json()).toMatchObject({ statusCode: 404, error: 'Not Found' });
  });

  it('answers 503 when GitHub does not give the diff', async () => {
    const payload = examplePayload({ authorId: author.githubId, number: nextNumber++ });
    const response = await t.app.inject(await signedDelivery(payload));
    expect(response.statusCode).toBe(200);
    // The fake GitHub knows no diff for this pull request: 404 there.
    const diff = await get(payload.pull_request.id);
    expect(diff.statusCode).toBe(503);
    expect(diff.json()).toMatchObject({ statusCode: 503, error: 'Service Unavailable' });
  });

  it('security: another user’s pull request is a 404, and a session is needed', async () => {
    const { payload, pr } = await storedPullRequest();
    const stranger = await createAccount(t.app, t.outbox);
    for (const id of [payload.pull_request.id, pr.id]) {
      const response = await get(id, stranger.cookie);
      expect(response.statusCode).toBe(404);
      expect(response.body).not.toContain('diff --git');
    }
    const anonymous = await t.app.inject({ method: 'GET', url: `/pull-request/diff/${payload.pull_request.id}` });
    expect(anonymous.statusCode).toBe(401);
  });
});
