import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceSettings, users } from '../../src/db/schema/index.js';
import { createAccount } from '../helpers/accounts.js';
import { appWorld, type AppWorld } from '../helpers/github-app-world.js';
import { appStatus, confirmOnGitHub, createAppFromManifest, manifestCallback, setupWorld, startManifest } from '../helpers/github-app-setup.js';
import { githubOAuth, githubUser } from '../helpers/github-login.js';

const ADMIN = [
  { method: 'GET' as const, url: '/admin/github-app' },
  { method: 'POST' as const, url: '/admin/github-app/manifest', payload: {} },
  { method: 'GET' as const, url: '/github/app-manifest/callback?code=abc&state=def' },
];

async function filesUnder(directory: string): Promise<Buffer[]> {
  const entries = await readdir(directory, { withFileTypes: true, recursive: true });
  return Promise.all(entries.filter((entry) => entry.isFile()).map((entry) => readFile(join(entry.parentPath, entry.name))));
}

describe('the GitHub App setup: who may, and where the secrets go', () => {
  let world: AppWorld;
  let operator: { cookie: string };
  let other: { cookie: string };
  beforeAll(async () => {
    world = await setupWorld();
    operator = await createAccount(world.t.app, world.t.outbox);
    other = await createAccount(world.t.app, world.t.outbox);
  });
  afterAll(() => world.close());

  it('without OPERATOR_EMAILS the first account is the operator; everyone else, signed in or not, gets 404', async () => {
    const { app } = world.t;
    for (const request of ADMIN) {
      for (const headers of [{ cookie: other.cookie }, {}]) {
        const response = await app.inject({ ...request, headers });
        expect(response.statusCode, `${request.method} ${request.url}`).toBe(404);
        expect(response.json()).toMatchObject({ statusCode: 404, error: 'Not Found' });
      }
    }
    // A non-operator holding an operator's state cannot spend it, nor store an App with it.
    const start = await startManifest(app, operator.cookie);
    const code = await confirmOnGitHub(start);
    expect((await manifestCallback(app, other.cookie, code, start.state)).statusCode).toBe(404);
    expect(world.github.manifests.conversions).toEqual([]);
    expect((await appStatus(app, operator.cookie)).configured).toBe(false);
  });

  it('the credentials appear in no response, log line, email or file, and only sealed in the database', async () => {
    const { t, github } = world;
    const responses: string[] = [];
    const start = await startManifest(t.app, operator.cookie);
    responses.push(JSON.stringify(start));
    const callback = await manifestCallback(t.app, operator.cookie, await confirmOnGitHub(start), start.state);
    expect(callback.statusCode).toBe(302);
    responses.push(callback.body, JSON.stringify(callback.headers));
    for (const cookie of [operator.cookie, other.cookie]) {
      for (const request of ADMIN.slice(0, 1)) responses.push((await t.app.inject({ ...request, headers: { cookie } })).body);
    }
    const profile = githubUser();
    const signIn = await githubOAuth(t.app, github, profile);
    responses.push(signIn.body, JSON.stringify(signIn.headers));

    const { clientSecret, webhookSecret } = github.manifests.credentials!;
    const pemBody = github.key.privateKey.split('\n')[1]!;
    const [user] = await t.app.db.select().from(users).where(eq(users.codehostUserId, profile.id));
    const userTokens = [t.app.secretBox.decrypt(user!.codehostToken!), t.app.secretBox.decrypt(user!.codehostRefreshToken!)];
    const secrets = [clientSecret, webhookSecret, pemBody, ...userTokens];

    const settings = JSON.stringify(await t.app.db.select().from(serviceSettings));
    const rows = JSON.stringify(await t.app.db.select().from(users));
    const files = (await filesUnder(t.config.dataDir)).map((file) => file.toString('latin1'));
    for (const secret of secrets) {
      expect(responses.join('\n'), 'a response').not.toContain(secret);
      expect(t.logs.join(''), 'a log line').not.toContain(secret);
      expect(settings, 'service_settings').not.toContain(secret);
      expect(rows, 'users').not.toContain(secret);
      for (const file of files) expect(file, 'a file under DATA_DIR').not.toContain(secret);
    }
    expect(settings).toMatch(/"value":"v1\./);
    expect(settings).not.toContain(github.slug);
  });
});

describe('the GitHub App setup: GITHUB_APP_* variables win', () => {
  let world: AppWorld;
  beforeAll(async () => {
    world = await appWorld();
  });
  afterAll(() => world.close());

  it('with an App in the environment the source says so, and no second App is made', async () => {
    const { t } = world;
    // appWorld sets no OPERATOR_EMAILS: this service's first account is its operator.
    const first = await createAccount(t.app, t.outbox);
    expect(await appStatus(t.app, first.cookie)).toEqual({
      configured: true,
      source: 'environment',
      appId: world.github.appId,
      slug: world.github.slug,
      htmlUrl: `${world.github.url}/apps/${world.github.slug}`,
      owner: null,
    });
    const again = await t.app.inject({ method: 'POST', url: '/admin/github-app/manifest', headers: { cookie: first.cookie } });
    expect(again.statusCode).toBe(409);
  });
});

describe('the GitHub App setup: OPERATOR_EMAILS', () => {
  let world: AppWorld;
  beforeAll(async () => {
    world = await setupWorld({ OPERATOR_EMAILS: 'Ops@Example.com, second-ops@example.com' });
  });
  afterAll(() => world.close());

  it('the listed accounts are operators (case aside), the first account is not', async () => {
    const { t } = world;
    const first = await createAccount(t.app, t.outbox);
    const ops = await createAccount(t.app, t.outbox, { email: 'ops@example.com' });
    expect((await t.app.inject({ method: 'GET', url: '/admin/github-app', headers: { cookie: first.cookie } })).statusCode).toBe(404);
    expect((await appStatus(t.app, ops.cookie)).configured).toBe(false);
    await createAppFromManifest(t.app, ops.cookie, { organization: 'acme' });
    expect((await appStatus(t.app, ops.cookie)).owner).toEqual({ login: 'acme', type: 'Organization' });
  });
});
