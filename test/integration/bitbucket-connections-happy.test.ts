import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { errorBody } from '../fakes/fake-bitbucket.js';
import { createAccount } from '../helpers/accounts.js';
import { bitbucketFixture, bitbucketWorld, HOOK_EVENTS, PUBLIC_URL, type BitbucketWorld, type Connection } from '../helpers/bitbucket-connections.js';
import { orgsOfRepository } from '../helpers/org-installations.js';
import { createOrg, joinedAccount } from '../helpers/orgs.js';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** decisions.md §16: connecting a Bitbucket Cloud repository, listing, disconnecting, moving it into an organization. */
describe('/bitbucket/connections: happy path', () => {
  let world: BitbucketWorld;
  beforeAll(async () => {
    world = await bitbucketWorld();
  });
  afterAll(() => world?.close());
  afterEach(() => world.expectNothingLeaked());

  const requestsSince = (start: number) => world.bitbucket.requests.slice(start);

  it('connects with a repository access token (Bearer): checks it, creates the webhook with a generated secret and the five events, answers 201 with commands false', async () => {
    const { bitbucket, call } = world;
    const account = await createAccount(world.t.app, world.t.outbox);
    const repo = world.repository();
    const credentials = world.accessToken(repo);
    const start = bitbucket.requests.length;
    const response = await world.connect(account, repo, credentials);
    expect(response.statusCode, response.body).toBe(201);
    const body = response.json<Connection>();
    expect(body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      workspace: repo.workspace,
      repoSlug: repo.repoSlug,
      repository: { uuid: repo.fake.uuid, fullName: repo.fullName, htmlUrl: `${bitbucket.url}/${repo.fullName}` },
      hookUuid: repo.fake.hooks[0]!.uuid,
      commands: false,
      orgId: null,
      createdAt: expect.stringMatching(ISO),
    });

    expect(repo.fake.hooks).toHaveLength(1);
    const hook = world.hookOf(repo, body.hookUuid);
    expect(hook).toMatchObject({ url: `${PUBLIC_URL}/webhook/bitbucket`, active: true });
    expect([...hook.events].sort()).toEqual([...HOOK_EVENTS].sort());
    expect(hook.secret!.length).toBeGreaterThanOrEqual(32);
    expect(hook.secret!.length).toBeLessThanOrEqual(128);

    // Every call went with the access token as a Bearer; the permissions probe was refused (access tokens cannot read them).
    const calls = requestsSince(start);
    expect(calls.every((request) => request.headers.authorization === `Bearer ${credentials.token}`)).toBe(true);
    expect(calls.map((request) => `${request.method} ${request.path}`)).toEqual(
      expect.arrayContaining([
        `GET /repositories/${repo.fullName}`,
        `GET /workspaces/${repo.workspace}/permissions/repositories/${repo.repoSlug}`,
        `POST /repositories/${repo.fullName}/hooks`,
      ]),
    );
    expect(calls.find((request) => request.path.includes('/permissions/'))!.query).toMatchObject({ pagelen: '1' });

    const list = await call(account, 'GET', '/bitbucket/connections');
    expect(list.statusCode).toBe(200);
    expect(list.json()).toEqual([{ ...body, status: 'active', reason: null }]);
  });

  it("connects with an admin's Atlassian API token (Basic email:token): the permissions probe answers 200, so commands are true", async () => {
    const { bitbucket } = world;
    const account = await createAccount(world.t.app, world.t.outbox);
    const repo = world.repository();
    const credentials = world.apiToken(repo);
    const start = bitbucket.requests.length;
    const response = await world.connect(account, repo, credentials);
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json()).toMatchObject({ workspace: repo.workspace, repoSlug: repo.repoSlug, repository: { uuid: repo.fake.uuid }, commands: true, orgId: null });
    const basic = `Basic ${Buffer.from(`${credentials.email}:${credentials.token}`).toString('base64')}`;
    expect(requestsSince(start).every((request) => request.headers.authorization === basic)).toBe(true);
    const hook = world.hookOf(repo, response.json<Connection>().hookUuid);
    expect(hook).toMatchObject({ url: `${PUBLIC_URL}/webhook/bitbucket`, active: true });
    expect([...hook.events].sort()).toEqual([...HOOK_EVENTS].sort());
  });

  it('commands follow the permissions probe: an API token it answers 403 connects with commands false', async () => {
    const account = await createAccount(world.t.app, world.t.outbox);
    const repo = world.repository();
    world.bitbucket.fail(new RegExp(`^GET /workspaces/${repo.workspace}/permissions/`), 403, { body: errorBody('You do not have admin access to this repository') });
    const response = await world.connect(account, repo, world.apiToken(repo));
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json()).toMatchObject({ commands: false });
    expect(repo.fake.hooks).toHaveLength(1);
  });

  it('a second user connects the same repository for themselves: a connection and a webhook secret of their own', async () => {
    const first = await world.connected();
    const second = await world.connected({ repo: first.repo, kind: 'api-token' });
    expect(second.connection.id).not.toBe(first.connection.id);
    expect(second.connection.repository.uuid).toBe(first.connection.repository.uuid);
    expect(first.repo.fake.hooks).toHaveLength(2);
    expect(second.secret).not.toBe(first.secret);
    expect((await world.call(first.account, 'GET', '/bitbucket/connections')).json()).toEqual([expect.objectContaining({ id: first.connection.id })]);
    expect((await world.call(second.account, 'GET', '/bitbucket/connections')).json()).toEqual([expect.objectContaining({ id: second.connection.id })]);
  });

  it('disconnects: the webhook is deleted on Bitbucket, the connection gone (204)', async () => {
    const { account, repo, connection } = await world.connected();
    const start = world.bitbucket.requests.length;
    const response = await world.call(account, 'DELETE', `/bitbucket/connections/${connection.id}`);
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    expect(repo.fake.hooks).toEqual([]);
    expect(requestsSince(start).map((request) => `${request.method} ${decodeURIComponent(request.path)}`)).toEqual([`DELETE /repositories/${repo.fullName}/hooks/${connection.hookUuid}`]);
    expect((await world.call(account, 'GET', '/bitbucket/connections')).json()).toEqual([]);
  });

  it('disconnecting still succeeds when Bitbucket refuses to delete the webhook (a revoked token, a server error)', async () => {
    const revoked = await world.connected();
    world.bitbucket.revokeAccessToken(revoked.credentials.token);
    expect((await world.call(revoked.account, 'DELETE', `/bitbucket/connections/${revoked.connection.id}`)).statusCode).toBe(204);
    expect((await world.call(revoked.account, 'GET', '/bitbucket/connections')).json()).toEqual([]);
    expect(revoked.repo.fake.hooks).toHaveLength(1);

    const failing = await world.connected({ kind: 'api-token' });
    world.bitbucket.fail(/^DELETE \/repositories\/.+\/hooks\//, 500);
    expect((await world.call(failing.account, 'DELETE', `/bitbucket/connections/${failing.connection.id}`)).statusCode).toBe(204);
    expect((await world.call(failing.account, 'GET', '/bitbucket/connections')).json()).toEqual([]);
    expect(world.t.logs.join('')).toContain('the Bitbucket webhook could not be removed');

    // A webhook already gone on Bitbucket is no failure either.
    const gone = await world.connected();
    gone.repo.fake.hooks.length = 0;
    expect((await world.call(gone.account, 'DELETE', `/bitbucket/connections/${gone.connection.id}`)).statusCode).toBe(204);
  });

  it('lists a connection Bitbucket refused later as broken, with the reason', async () => {
    const { account, connection } = await world.connected();
    await world.t.app.services.bitbucket.markBroken(connection.id, 'Token is invalid, expired, or not supported for this endpoint.');
    expect((await world.call(account, 'GET', '/bitbucket/connections')).json()).toEqual([
      { ...connection, status: 'broken', reason: 'Token is invalid, expired, or not supported for this endpoint.' },
    ]);
  });

  it('organizations (decisions.md §15): an admin connects straight into one; a personal connection moves in with its pull requests, and out', async () => {
    const { t } = world;
    const lead = await createAccount(t.app, t.outbox);
    const org = await createOrg(t.app, lead, 'Bitbucket Team');
    const admin = await joinedAccount(t.app, t.outbox, lead, org.id, 'admin', 'Admin');
    const member = await joinedAccount(t.app, t.outbox, lead, org.id, 'member', 'Member');

    const intoOrg = await world.connected({ account: admin, orgId: org.id });
    expect(intoOrg.connection.orgId).toBe(org.id);
    const delivered = await world.deliver('pullrequest:created', bitbucketFixture('pullrequest-created.json', intoOrg.repo, { draft: false }), { secret: intoOrg.secret });
    expect(delivered.statusCode, delivered.body).toBe(200);
    expect(await orgsOfRepository(t.app, { id: intoOrg.repo.fake.uuid })).toEqual([{ orgId: org.id, userId: admin.id }]);
    // Every member sees the organization's connection.
    expect((await world.call(member, 'GET', '/bitbucket/connections')).json()).toEqual([{ ...intoOrg.connection, status: 'active', reason: null }]);

    const personal = await world.connected({ account: lead });
    expect(personal.connection.orgId).toBeNull();
    expect((await world.deliver('pullrequest:created', bitbucketFixture('pullrequest-created.json', personal.repo, { draft: false }), { secret: personal.secret })).statusCode).toBe(200);
    expect(await orgsOfRepository(t.app, { id: personal.repo.fake.uuid })).toEqual([{ orgId: null, userId: lead.id }]);

    const moved = await world.call(lead, 'PATCH', `/bitbucket/connections/${personal.connection.id}`, { orgId: org.id });
    expect(moved.statusCode, moved.body).toBe(200);
    expect(moved.json()).toEqual({ ...personal.connection, orgId: org.id });
    expect(await orgsOfRepository(t.app, { id: personal.repo.fake.uuid })).toEqual([{ orgId: org.id, userId: lead.id }]);
    const audit = (await world.call(lead, 'GET', `/orgs/${org.id}/audit`)).json<{ items: Array<{ action: string; target: string }> }>();
    expect(audit.items[0]).toMatchObject({ action: 'connection.moved', target: personal.repo.fullName });
    expect((await world.call(member, 'GET', '/bitbucket/connections')).json<Connection[]>().map((item) => item.id).sort()).toEqual([intoOrg.connection.id, personal.connection.id].sort());

    // An admin of the organization moves it out: into their own personal space, with its pull requests.
    const out = await world.call(admin, 'PATCH', `/bitbucket/connections/${personal.connection.id}`, { orgId: null });
    expect(out.statusCode, out.body).toBe(200);
    expect(out.json()).toMatchObject({ id: personal.connection.id, orgId: null });
    expect(await orgsOfRepository(t.app, { id: personal.repo.fake.uuid })).toEqual([{ orgId: null, userId: admin.id }]);
    expect((await world.call(admin, 'GET', '/pull-request/list?org=personal')).json<unknown[]>()).toHaveLength(1);
    expect((await world.call(member, 'GET', '/bitbucket/connections')).json<Connection[]>().map((item) => item.id)).toEqual([intoOrg.connection.id]);

    // An admin of the organization disconnects its connection.
    expect((await world.call(admin, 'DELETE', `/bitbucket/connections/${intoOrg.connection.id}`)).statusCode).toBe(204);
    expect(intoOrg.repo.fake.hooks).toEqual([]);
  });
});
