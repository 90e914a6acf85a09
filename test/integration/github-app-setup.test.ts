import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { users } from '../../src/db/schema/index.js';
import { createAccount, sessionCookie } from '../helpers/accounts.js';
import { appModel, appPullRequest, installationPayload, newRepo, publication, PUBLIC_URL, type AppWorld } from '../helpers/github-app-world.js';
import { appStatus, createAppFromManifest, setupWorld } from '../helpers/github-app-setup.js';
import { githubOAuth, githubUser } from '../helpers/github-login.js';
import { SAMPLE_DIFF, SAMPLE_FINDINGS } from '../helpers/review-fixtures.js';
import { signedDelivery } from '../helpers/webhooks.js';

const SHA = 'c'.repeat(40);

const deliverSigned = async (app: FastifyInstance, event: string, payload: unknown, secret: string) => app.inject(await signedDelivery(payload, { event, secret }));

/** decisions.md §13: a service started with nothing set creates its GitHub App in one step, and it works at once. */
describe('setup in one step: the GitHub App from a manifest', () => {
  let world: AppWorld;
  let operator: { cookie: string };
  beforeAll(async () => {
    world = await setupWorld();
    operator = await createAccount(world.t.app, world.t.outbox);
  });
  afterAll(() => world.close());

  it('before: nothing is configured, installing and Sign in with GitHub are unavailable', async () => {
    const { app } = world.t;
    expect(await appStatus(app, operator.cookie)).toEqual({ configured: false, source: null, appId: null, slug: null, htmlUrl: null, owner: null });
    expect((await app.inject({ method: 'GET', url: '/github/install', headers: { cookie: operator.cookie } })).statusCode).toBe(503);
    expect((await app.inject({ method: 'GET', url: '/auth/codehost/configured' })).json()).toEqual({ configured: false });
  });

  it("the manifest is in GitHub's keys, named after PUBLIC_URL's host, and posted to GitHub's page", async () => {
    const response = await world.t.app.inject({ method: 'POST', url: '/admin/github-app/manifest', headers: { cookie: operator.cookie }, payload: { organization: 'acme-inc' } });
    expect(response.statusCode, response.body).toBe(200);
    const { url, manifest, state } = response.json<{ url: string; manifest: Record<string, unknown>; state: string }>();
    expect(url).toBe(`${world.github.url}/organizations/acme-inc/settings/apps/new?state=${state}`);
    expect(manifest).toEqual({
      name: expect.stringContaining('review.example.com'),
      url: PUBLIC_URL,
      hook_attributes: { url: `${PUBLIC_URL}/webhook`, active: true },
      redirect_url: `${PUBLIC_URL}/github/app-manifest/callback`,
      callback_urls: [`${PUBLIC_URL}/auth/codehost/callback`],
      setup_url: `${PUBLIC_URL}/settings/github`,
      public: false,
      default_permissions: { pull_requests: 'write', checks: 'write', issues: 'write', contents: 'read', metadata: 'read' },
      default_events: ['pull_request', 'issue_comment', 'check_run', 'pull_request_review_comment'],
    });
    expect((manifest.name as string).length).toBeLessThanOrEqual(34);
    const personal = await world.t.app.inject({ method: 'POST', url: '/admin/github-app/manifest', headers: { cookie: operator.cookie } });
    expect(personal.statusCode, personal.body).toBe(200);
    expect(personal.json<{ url: string }>().url).toMatch(new RegExp(`^${world.github.url}/settings/apps/new\\?state=[0-9a-f]{64}$`));
  });

  it('after the callback the App is configured from the database, with the slug GitHub gave it', async () => {
    const { app } = world.t;
    const start = await createAppFromManifest(app, operator.cookie);
    const status = await appStatus(app, operator.cookie);
    expect(status).toEqual({
      configured: true,
      source: 'database',
      appId: world.github.appId,
      slug: world.github.slug,
      htmlUrl: `${world.github.url}/apps/${world.github.slug}`,
      owner: { login: 'operator', type: 'User' },
    });
    // The person may rename the App on GitHub's page: the slug is the conversion's, not the manifest's name.
    expect(status.slug).not.toBe(start.manifest.name);
    const install = await app.inject({ method: 'GET', url: '/github/install', headers: { cookie: operator.cookie } });
    expect(install.statusCode).toBe(302);
    expect(install.headers.location).toBe(`${world.github.url}/apps/${world.github.slug}/installations/new`);
    // Once configured, a second App is not created over it.
    expect((await app.inject({ method: 'POST', url: '/admin/github-app/manifest', headers: { cookie: operator.cookie } })).statusCode).toBe(409);
  });

  it("without a restart: the App's secret checks deliveries, another secret is refused", async () => {
    const { app } = world.t;
    const { webhookSecret } = world.github.manifests.credentials!;
    const payload = installationPayload('created', 3101, 4242, [newRepo()]);
    expect((await app.inject(await signedDelivery(payload, { event: 'installation', secret: 'some-other-secret' }))).statusCode).toBe(401);
    const unsigned = await app.inject({ method: 'POST', url: '/webhook', payload, headers: { 'x-github-event': 'installation' } });
    expect(unsigned.statusCode).toBe(401);
    expect((await app.inject(await signedDelivery(payload, { event: 'installation', secret: webhookSecret }))).statusCode).toBe(200);
  });

  it("Sign in with GitHub goes through the App's client id, and its 8-hour token is refreshed when it expires", async () => {
    const { t, github } = world;
    const { clientId } = github.manifests.credentials!;
    expect((await t.app.inject({ method: 'GET', url: '/auth/codehost/configured' })).json()).toEqual({ configured: true });
    const start = await t.app.inject({ method: 'GET', url: '/auth/codehost' });
    expect(new URL(start.headers.location!).searchParams.get('client_id')).toBe(clientId);

    const profile = githubUser();
    const callback = await githubOAuth(t.app, github, profile);
    expect(callback.statusCode, callback.body).toBe(302);
    const exchange = github.requests.filter((request) => request.path === '/login/oauth/access_token').at(-1)!;
    expect(JSON.parse(exchange.body)).toMatchObject({ client_id: clientId });
    const [user] = await t.app.db.select().from(users).where(eq(users.codehostUserId, profile.id));
    expect(user!.codehostRefreshToken).toMatch(/^v1\./);
    expect(user!.codehostTokenExpiresAt!.getTime() - Date.now()).toBeGreaterThan(7.9 * 3600_000);

    // Eight hours later: a pull request that did not come through the App is read with a refreshed token.
    await t.app.db.update(users).set({ codehostTokenExpiresAt: new Date(Date.now() - 1000) }).where(eq(users.id, user!.id));
    world.model.reply(appModel(SAMPLE_FINDINGS));
    const cookie = sessionCookie(callback);
    const payload = appPullRequest(0, newRepo(), profile.id, { headSha: SHA });
    delete (payload as { installation?: unknown }).installation;
    github.setDiff(payload.repository.full_name, payload.pull_request.number, SAMPLE_DIFF);
    expect((await t.app.inject(await signedDelivery(payload, { secret: github.manifests.credentials!.webhookSecret }))).statusCode).toBe(200);
    await publication(t.app, cookie, payload.pull_request.id, (review) => review.reviewStatus === 'completed');
    expect(github.manifests.refreshes).toHaveLength(1);
    const [refreshed] = await t.app.db.select().from(users).where(eq(users.id, user!.id));
    expect(refreshed!.codehostTokenExpiresAt!.getTime()).toBeGreaterThan(Date.now() + 7.9 * 3600_000);
    const diffRead = github.requests.find((request) => request.path.endsWith(`/pulls/${payload.pull_request.number}`) && request.path.includes(payload.repository.full_name));
    expect(diffRead!.headers.authorization).toBe(`Bearer ${t.app.secretBox.decrypt(refreshed!.codehostToken!)}`);
  });

  it('an installation, then a pull request through it: reviewed and posted in the pull request', async () => {
    const { t, github } = world;
    const secret = github.manifests.credentials!.webhookSecret;
    const profile = githubUser();
    const cookie = sessionCookie(await githubOAuth(t.app, github, profile));
    const repo = newRepo();
    github.install(3102, [repo.full_name]);
    expect((await deliverSigned(t.app, 'installation', installationPayload('created', 3102, profile.id, [repo]), secret)).statusCode).toBe(200);

    world.model.reply(appModel(SAMPLE_FINDINGS));
    const payload = appPullRequest(3102, repo, githubUser().id, { headSha: SHA, number: 9 });
    github.openPull(repo.full_name, 9, SHA, SAMPLE_DIFF);
    expect((await deliverSigned(t.app, 'pull_request', payload, secret)).statusCode).toBe(200);
    const review = await publication(t.app, cookie, payload.pull_request.id, (item) => item.publication.state === 'published');
    expect(review.publication.reviewUrl).toContain(repo.full_name);
    expect(github.submittedReviews(repo.full_name, 9)).toHaveLength(1);
    expect(github.checkRuns.filter((run) => run.repository === repo.full_name)).toEqual([expect.objectContaining({ head_sha: SHA, status: 'completed' })]);
  });
});
