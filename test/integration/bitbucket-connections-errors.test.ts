import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bitbucketConnections } from '../../src/code-hosts/bitbucket/bitbucket-tables.js';
import { bitbucketUser, errorBody, MESSAGES } from '../fakes/fake-bitbucket.js';
import { createAccount, type Account } from '../helpers/accounts.js';
import { bitbucketWorld, type BitbucketWorld, type Repo } from '../helpers/bitbucket-connections.js';

/** decisions.md §16: what Bitbucket refuses is the caller's 400 with Bitbucket's reason, and nothing is kept. */
describe('/bitbucket/connections: errors', () => {
  let world: BitbucketWorld;
  beforeAll(async () => {
    world = await bitbucketWorld();
  });
  afterAll(() => world?.close());
  afterEach(() => world.expectNothingLeaked());

  /** Nothing kept: no webhook on Bitbucket, nothing listed, no row. */
  async function expectNothingKept(account: Account, repo: Repo) {
    expect(repo.fake.hooks).toEqual([]);
    expect((await world.call(account, 'GET', '/bitbucket/connections')).json()).toEqual([]);
    expect(await world.t.app.db.select().from(bitbucketConnections).where(eq(bitbucketConnections.userId, account.id))).toEqual([]);
  }
  const message = (response: { json: <T>() => T }) => response.json<{ message: string }>().message;

  it('answers 400 with details for invalid input, without calling Bitbucket', async () => {
    const account = await createAccount(world.t.app, world.t.outbox);
    const before = world.bitbucket.requests.length;
    const valid = { workspace: 'acme', repoSlug: 'widgets', token: 'ATCTT3x-token' };
    for (const body of [
      {},
      { repoSlug: 'widgets', token: 'x' },
      { workspace: 'acme', token: 'x' },
      { workspace: 'acme', repoSlug: 'widgets' },
      { ...valid, workspace: '' },
      { ...valid, workspace: 'has space' },
      { ...valid, workspace: '../etc' },
      { ...valid, repoSlug: 'a/b' },
      { ...valid, repoSlug: 'x'.repeat(256) },
      { ...valid, token: '' },
      { ...valid, token: 'has space' },
      { ...valid, token: 'x'.repeat(2049) },
      { ...valid, token: 42 },
      { ...valid, email: 'not an email' },
      { ...valid, orgId: 7 },
    ]) {
      const response = await world.call(account, 'POST', '/bitbucket/connections', body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json()).toMatchObject({ statusCode: 400, error: 'Bad Request', details: expect.any(Array) });
      expect(response.json<{ details: unknown[] }>().details.length, JSON.stringify(body)).toBeGreaterThan(0);
    }
    expect(world.bitbucket.requests.length).toBe(before);
  });

  it("answers 400 with Bitbucket's error.message when the token or the repository is refused (401, 404), and keeps nothing", async () => {
    const account = await createAccount(world.t.app, world.t.outbox);
    const repo = world.repository();

    const unknownToken = await world.connect(account, repo, { token: 'ATCTT3x-not-a-real-token' });
    expect(unknownToken.statusCode).toBe(400);
    expect(unknownToken.json()).toEqual({ statusCode: 400, error: 'Bad Request', message: expect.stringContaining(MESSAGES.unauthorized) });

    const unknownApiToken = await world.connect(account, repo, { email: 'someone@example.com', token: 'ATATT3x-not-a-real-token' });
    expect(unknownApiToken.statusCode).toBe(400);
    expect(message(unknownApiToken)).toContain(MESSAGES.unauthorized);

    const missing = await world.connect(account, repo, world.accessToken(repo), { repoSlug: 'nothing-here' });
    expect(missing.statusCode).toBe(400);
    expect(message(missing)).toContain(MESSAGES.repositoryNotFound);

    // A repository access token reaches its own repository only.
    const other = world.repository();
    const elsewhere = await world.connect(account, other, world.accessToken(repo));
    expect(elsewhere.statusCode).toBe(400);
    expect(message(elsewhere)).toContain(MESSAGES.repositoryNotFound);

    // An API token whose account has no access to the repository.
    const outsider = bitbucketUser('Outsider');
    const noAccess = await world.connect(account, repo, world.apiToken(repo, outsider));
    expect(noAccess.statusCode).toBe(400);
    expect(message(noAccess)).toContain(MESSAGES.repositoryNotFound);

    await expectNothingKept(account, repo);
    await expectNothingKept(account, other);
  });

  it("answers 400 with Bitbucket's error.message when the webhook is refused (403): a token without the Webhooks scope, an API token of a non-admin; nothing kept", async () => {
    const account = await createAccount(world.t.app, world.t.outbox);
    const repo = world.repository();

    const noWebhookScope = await world.connect(account, repo, world.accessToken(repo, ['repository', 'pullrequest']));
    expect(noWebhookScope.statusCode).toBe(400);
    expect(message(noWebhookScope)).toContain(MESSAGES.scopes);
    expect(message(noWebhookScope)).toMatch(/webhook/i);

    const writer = bitbucketUser('Wes Writer');
    world.bitbucket.setPermission(repo.fullName, writer, 'write');
    const notAdmin = await world.connect(account, repo, world.apiToken(repo, writer));
    expect(notAdmin.statusCode).toBe(400);
    expect(message(notAdmin)).toContain('You must be an administrator of this repository to manage its webhooks');

    // An API token without read:user: the account the service writes as cannot be learned.
    const noUser = await world.connect(account, repo, world.apiToken(repo, repo.admin, ['read:repository:bitbucket', 'read:pullrequest:bitbucket', 'write:webhook:bitbucket']));
    expect(noUser.statusCode).toBe(400);
    expect(message(noUser)).toContain(MESSAGES.scopes);

    await expectNothingKept(account, repo);
  });

  it('keeps nothing when a step after the checks fails: the creation of the webhook refused (404), the permissions probe refused otherwise than with a 403', async () => {
    const account = await createAccount(world.t.app, world.t.outbox);
    const repo = world.repository();
    world.bitbucket.fail(/^POST \/repositories\/[^/]+\/[^/]+\/hooks$/, 404, { body: errorBody('Repository not found') });
    const hookRefused = await world.connect(account, repo, world.accessToken(repo));
    expect(hookRefused.statusCode).toBe(400);
    expect(message(hookRefused)).toContain('Repository not found');

    world.bitbucket.fail(new RegExp(`^GET /workspaces/${repo.workspace}/permissions/`), 404, { body: errorBody('Workspace not found') });
    const probeRefused = await world.connect(account, repo, world.apiToken(repo));
    expect(probeRefused.statusCode).toBe(400);
    expect(message(probeRefused)).toContain('Workspace not found');

    await expectNothingKept(account, repo);
  });

  it('answers 503 while Bitbucket rate-limits, and keeps nothing', async () => {
    const account = await createAccount(world.t.app, world.t.outbox);
    const repo = world.repository();
    world.bitbucket.rateLimit(new RegExp(`^GET /repositories/${repo.fullName}$`));
    const limited = await world.connect(account, repo, world.accessToken(repo));
    expect(limited.statusCode).toBe(503);
    await expectNothingKept(account, repo);
  });

  it('answers 409 when the caller already connected the repository (with any token), and creates no second webhook', async () => {
    const { account, repo } = await world.connected();
    const again = await world.connect(account, repo, world.apiToken(repo));
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ statusCode: 409, error: 'Conflict', message: expect.stringContaining(repo.fullName) });
    expect(repo.fake.hooks).toHaveLength(1);
    expect((await world.call(account, 'GET', '/bitbucket/connections')).json()).toHaveLength(1);
  });

  it('concurrent connects of one repository by one user: one 201, the others 409; a webhook created before its connection lost the race to be stored is deleted again', async () => {
    const account = await createAccount(world.t.app, world.t.outbox);
    const repo = world.repository();
    const start = world.bitbucket.requests.length;
    const responses = await Promise.all([0, 1, 2].map(() => world.connect(account, repo, world.accessToken(repo))));
    expect(responses.map((response) => response.statusCode).sort()).toEqual([201, 409, 409]);
    const created = responses.find((response) => response.statusCode === 201)!.json<{ hookUuid: string }>();
    expect(repo.fake.hooks.map((hook) => hook.uuid)).toEqual([created.hookUuid]);
    // A webhook created by a request that then lost the race to store its connection was deleted again.
    const hookCalls = world.bitbucket.requests.slice(start).filter((request) => request.path.startsWith(`/repositories/${repo.fullName}/hooks`));
    expect(hookCalls.filter((request) => request.method === 'POST').length - hookCalls.filter((request) => request.method === 'DELETE').length).toBe(1);
    expect((await world.call(account, 'GET', '/bitbucket/connections')).json()).toHaveLength(1);
  });

  it('answers 404 for an unknown or malformed connection id (DELETE and PATCH)', async () => {
    const account = await createAccount(world.t.app, world.t.outbox);
    for (const id of ['6d1f2a7e-0000-4000-8000-000000000000', 'not-an-id', '1', 'x'.repeat(64)]) {
      const deleted = await world.call(account, 'DELETE', `/bitbucket/connections/${id}`);
      expect(deleted.statusCode, id).toBe(404);
      expect(deleted.json()).toMatchObject({ statusCode: 404, error: 'Not Found' });
      expect((await world.call(account, 'PATCH', `/bitbucket/connections/${id}`, { orgId: null })).statusCode, id).toBe(404);
    }
  });

  it('moving: 400 without orgId or with a number; 404 for an organization that does not exist; out of no organization changes nothing', async () => {
    const { account, connection } = await world.connected();
    const missing = await world.call(account, 'PATCH', `/bitbucket/connections/${connection.id}`, {});
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({ statusCode: 400, error: 'Bad Request', details: expect.any(Array) });
    expect((await world.call(account, 'PATCH', `/bitbucket/connections/${connection.id}`, { orgId: 5 })).statusCode).toBe(400);
    for (const orgId of ['not-an-org', '00000000-0000-4000-8000-000000000000']) {
      expect((await world.call(account, 'PATCH', `/bitbucket/connections/${connection.id}`, { orgId })).statusCode, orgId).toBe(404);
    }
    const unchanged = await world.call(account, 'PATCH', `/bitbucket/connections/${connection.id}`, { orgId: null });
    expect(unchanged.statusCode).toBe(200);
    expect(unchanged.json()).toEqual(connection);
  });
});
