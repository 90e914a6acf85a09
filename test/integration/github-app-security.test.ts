import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../helpers/accounts.js';
import { signInWithGitHub, githubUser } from '../helpers/github-login.js';
import { appPullRequest, appWorld, deliver, installationPayload, newRepo, type AppWorld } from '../helpers/github-app-world.js';
import { createTestApp } from '../helpers/test-app.js';

describe('the GitHub App: errors and security', () => {
  let world: AppWorld;
  beforeAll(async () => {
    world = await appWorld();
  });
  afterAll(() => world.close());

  it('GET /github/install: a session, then a redirect to the install page', async () => {
    const { t, github } = world;
    expect((await t.app.inject({ method: 'GET', url: '/github/install' })).statusCode).toBe(401);
    const user = await signInWithGitHub(t.app, github);
    const response = await t.app.inject({ method: 'GET', url: '/github/install', headers: { cookie: user.cookie } });
    expect(response.statusCode).toBe(302);
    expect(response.headers.location).toBe(`${github.url}/apps/${github.slug}/installations/new`);
  });

  it('GET /github/install answers 503 when no App is configured', async () => {
    const plain = await createTestApp();
    try {
      const account = await createAccount(plain.app, plain.outbox);
      const response = await plain.app.inject({ method: 'GET', url: '/github/install', headers: { cookie: account.cookie } });
      expect(response.statusCode).toBe(503);
      expect(response.json()).toMatchObject({ statusCode: 503, message: expect.stringContaining('GITHUB_APP_ID') });
      expect((await plain.app.inject({ method: 'GET', url: '/github/installations' })).statusCode).toBe(401);
      expect((await plain.app.inject({ method: 'GET', url: '/github/installations', headers: { cookie: account.cookie } })).json()).toEqual([]);
    } finally {
      await plain.close();
    }
  });

  it("lists only the caller's installations; an unclaimed one becomes its installer's when they sign in", async () => {
    const { t, github } = world;
    const alice = await signInWithGitHub(t.app, github);
    const bob = await signInWithGitHub(t.app, github);
    await deliver(t.app, 'installation', installationPayload('created', 4_200_001, alice.githubId, [newRepo()]));
    const list = async (cookie: string) => (await t.app.inject({ method: 'GET', url: '/github/installations', headers: { cookie } })).json<Array<{ id: number }>>();
    expect((await list(alice.cookie)).map((item) => item.id)).toContain(4_200_001);
    expect((await list(bob.cookie)).map((item) => item.id)).not.toContain(4_200_001);

    // Installed by someone not registered: unclaimed, and their pull requests are not stored.
    const carol = githubUser();
    const repo = newRepo();
    await deliver(t.app, 'installation', installationPayload('created', 4_200_002, carol.id, [repo]));
    const payload = appPullRequest(4_200_002, repo, githubUser().id);
    expect((await deliver(t.app, 'pull_request', payload)).statusCode).toBe(200);
    expect(await t.app.repos.pullRequests.findByNumber(repo.full_name, payload.pull_request.number)).toBeUndefined();
    const signedIn = await signInWithGitHub(t.app, github, carol);
    expect((await list(signedIn.cookie)).map((item) => item.id)).toEqual([4_200_002]);
  });

  it('App events must be signed: a session is not enough (401)', async () => {
    const { t, github } = world;
    const user = await signInWithGitHub(t.app, github);
    const response = await t.app.inject({
      method: 'POST',
      url: '/webhook',
      headers: { cookie: user.cookie, 'content-type': 'application/json', 'x-github-event': 'installation' },
      payload: installationPayload('created', 4_200_003, user.githubId, []),
    });
    expect(response.statusCode).toBe(401);
    expect(await t.app.repos.installations.find(4_200_003)).toBeUndefined();
  });

  it('an event not in the contract is a 422; a bad App payload a 400; a review-comment reply a 200', async () => {
    const { t } = world;
    expect((await deliver(t.app, 'issues', { action: 'opened' })).statusCode).toBe(422);
    const bad = await deliver(t.app, 'installation', { action: 'created', installation: { id: 'x' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ statusCode: 400, details: expect.any(Array) });
    const reply = {
      action: 'created',
      comment: { id: 991, in_reply_to_id: 990, body: '/wrong not a bug here', user: { id: 5, login: 'maintainer', type: 'User' }, author_association: 'MEMBER' },
      pull_request: { number: 1 },
      repository: newRepo(),
      installation: { id: 4_200_001 },
    };
    expect((await deliver(t.app, 'pull_request_review_comment', reply)).statusCode).toBe(200);
  });

  it('a pull request without an installation and without a registered author is still the API document’s 500', async () => {
    const { t } = world;
    const payload = appPullRequest(1, newRepo(), githubUser().id);
    const { installation: _installation, ...plain } = payload;
    expect((await deliver(t.app, 'pull_request', plain)).statusCode).toBe(500);
  });
});
