import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bitbucketConnections } from '../../src/code-hosts/bitbucket/bitbucket-tables.js';
import { createAccount } from '../helpers/accounts.js';
import { bitbucketWorld, type BitbucketWorld, type Connection } from '../helpers/bitbucket-connections.js';
import { createOrg, joinedAccount } from '../helpers/orgs.js';

/** decisions.md §16 and §15: a connection is its owner's (or its organization's admins'), and its token and secret never leave the service. */
describe('/bitbucket/connections: security', () => {
  let world: BitbucketWorld;
  beforeAll(async () => {
    world = await bitbucketWorld();
  });
  afterAll(() => world?.close());
  // Every response body and log line of every test: no token, no hook secret.
  afterEach(() => world.expectNothingLeaked());

  const rowOf = async (id: string) => (await world.t.app.db.select().from(bitbucketConnections).where(eq(bitbucketConnections.id, id)))[0];

  it('answers 401 without a session, before Bitbucket is called', async () => {
    const { connection } = await world.connected();
    const before = world.bitbucket.requests.length;
    for (const [method, url, payload] of [
      ['GET', '/bitbucket/connections'],
      ['POST', '/bitbucket/connections', { workspace: 'a', repoSlug: 'b', token: 'x' }],
      ['PATCH', `/bitbucket/connections/${connection.id}`, { orgId: null }],
      ['DELETE', `/bitbucket/connections/${connection.id}`],
    ] as const) {
      const response = await world.call(undefined, method, url, payload);
      expect(response.statusCode, `${method} ${url}`).toBe(401);
    }
    expect(world.bitbucket.requests.length).toBe(before);
    expect(await rowOf(connection.id)).toBeDefined();
  });

  it("another user's connection is a 404 to see, delete or move, and stays connected with its webhook", async () => {
    const owner = await world.connected();
    const other = await createAccount(world.t.app, world.t.outbox);
    const othersOrg = await createOrg(world.t.app, other, 'Other Co');
    expect((await world.call(other, 'GET', '/bitbucket/connections')).json()).toEqual([]);
    expect((await world.call(other, 'DELETE', `/bitbucket/connections/${owner.connection.id}`)).statusCode).toBe(404);
    for (const orgId of [null, othersOrg.id]) expect((await world.call(other, 'PATCH', `/bitbucket/connections/${owner.connection.id}`, { orgId })).statusCode).toBe(404);
    expect(owner.repo.fake.hooks).toHaveLength(1);
    expect(await rowOf(owner.connection.id)).toMatchObject({ userId: owner.account.id, orgId: null });
    expect((await world.call(owner.account, 'GET', '/bitbucket/connections')).json()).toEqual([{ ...owner.connection, status: 'active', reason: null }]);
  });

  it('never returns the token, the email or the webhook secret: answers and lists hold exactly the documented fields', async () => {
    const { account, repo, connection } = await world.connected({ kind: 'api-token' });
    const keys = ['commands', 'createdAt', 'hookUuid', 'id', 'orgId', 'repoSlug', 'repository', 'workspace'];
    expect(Object.keys(connection).sort()).toEqual(keys);
    const [listed] = (await world.call(account, 'GET', '/bitbucket/connections')).json<Array<Connection & { status: string; reason: null }>>();
    expect(Object.keys(listed!).sort()).toEqual([...keys, 'reason', 'status'].sort());
    expect(Object.keys(listed!.repository).sort()).toEqual(['fullName', 'htmlUrl', 'uuid']);
    expect(JSON.stringify(listed)).not.toContain('@example.com');
    // Bitbucket never gets the secret back either: only the service and the webhook know it.
    expect(world.hookOf(repo, connection.hookUuid).secret).toBeTruthy();
  });

  it('keeps tokens and webhook secrets encrypted in the database, for both kinds of token', async () => {
    for (const kind of ['access-token', 'api-token'] as const) {
      const { connection, credentials, secret } = await world.connected({ kind });
      const row = (await rowOf(connection.id))!;
      expect(row.token).toMatch(/^v1\./);
      expect(row.webhookSecret).toMatch(/^v1\./);
      expect(JSON.stringify(row)).not.toContain(credentials.token);
      expect(JSON.stringify(row)).not.toContain(secret);
      expect(world.t.app.secretBox.decrypt(row.token)).toBe(credentials.token);
      expect(world.t.app.secretBox.decrypt(row.webhookSecret)).toBe(secret);
      expect(row.email).toBe(credentials.email ?? null);
    }
  });

  it('connecting into an organization needs admin+, checked before Bitbucket is called: a member 403, a non-member 404, no such organization 404', async () => {
    const { t } = world;
    const lead = await createAccount(t.app, t.outbox);
    const org = await createOrg(t.app, lead, 'Guarded Co');
    const member = await joinedAccount(t.app, t.outbox, lead, org.id, 'member', 'Member');
    const outsider = await createAccount(t.app, t.outbox);
    const repo = world.repository();
    const before = world.bitbucket.requests.length;

    const asMember = await world.connect(member, repo, world.accessToken(repo), { orgId: org.id });
    expect(asMember.statusCode, asMember.body).toBe(403);
    expect(asMember.json()).toMatchObject({ statusCode: 403, error: 'Forbidden' });
    expect((await world.connect(outsider, repo, world.accessToken(repo), { orgId: org.id })).statusCode).toBe(404);
    for (const orgId of ['not-an-org', '00000000-0000-4000-8000-000000000000']) expect((await world.connect(lead, repo, world.accessToken(repo), { orgId })).statusCode, orgId).toBe(404);
    expect(world.bitbucket.requests.length).toBe(before);
    expect(repo.fake.hooks).toEqual([]);
    expect((await world.call(lead, 'GET', '/bitbucket/connections')).json()).toEqual([]);
  });

  it("an organization's connection: a member sees it but cannot move or disconnect it (403), an outsider gets 404; a member cannot move their own into it (403)", async () => {
    const { t } = world;
    const lead = await createAccount(t.app, t.outbox);
    const org = await createOrg(t.app, lead, 'Members Co');
    const member = await joinedAccount(t.app, t.outbox, lead, org.id, 'member', 'Member');
    const outsider = await createAccount(t.app, t.outbox);
    const { connection, repo } = await world.connected({ account: lead, orgId: org.id });

    expect((await world.call(member, 'GET', '/bitbucket/connections')).json()).toEqual([expect.objectContaining({ id: connection.id, orgId: org.id })]);
    expect((await world.call(member, 'PATCH', `/bitbucket/connections/${connection.id}`, { orgId: null })).statusCode).toBe(403);
    expect((await world.call(member, 'DELETE', `/bitbucket/connections/${connection.id}`)).statusCode).toBe(403);
    expect((await world.call(outsider, 'GET', '/bitbucket/connections')).json()).toEqual([]);
    expect((await world.call(outsider, 'PATCH', `/bitbucket/connections/${connection.id}`, { orgId: null })).statusCode).toBe(404);
    expect((await world.call(outsider, 'DELETE', `/bitbucket/connections/${connection.id}`)).statusCode).toBe(404);
    expect(await rowOf(connection.id)).toMatchObject({ orgId: org.id, userId: lead.id });
    expect(repo.fake.hooks).toHaveLength(1);

    const own = await world.connected({ account: member });
    expect((await world.call(member, 'PATCH', `/bitbucket/connections/${own.connection.id}`, { orgId: org.id })).statusCode).toBe(403);
    expect(await rowOf(own.connection.id)).toMatchObject({ orgId: null, userId: member.id });
    const audit = (await world.call(lead, 'GET', `/orgs/${org.id}/audit`)).json<{ items: Array<{ action: string }> }>();
    expect(audit.items.map((item) => item.action)).not.toContain('connection.moved');
  });

  it("removes a user's connections with the account", async () => {
    const { account, connection } = await world.connected();
    expect((await world.call(account, 'DELETE', '/users')).statusCode).toBeLessThan(300);
    expect(await rowOf(connection.id)).toBeUndefined();
  });
});
