import { personal } from '../../src/domain/owners.js';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aiMessages, sessions } from '../../src/db/schema/index.js';
import { sha256Hex } from '../../src/lib/crypto/tokens.js';
import { createAccount, uniqueEmail } from '../helpers/accounts.js';
import { countUserRows, seedUserData } from '../helpers/seed.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

describe('/users', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const patch = (cookie: string, payload: unknown) => t.app.inject({ method: 'PATCH', url: '/users', headers: { cookie }, payload: payload as object });

  it('GET answers the caller’s own profile, as the web app shows it', async () => {
    const account = await createAccount(t.app, t.outbox);
    const other = await createAccount(t.app, t.outbox);
    const response = await t.app.inject({ method: 'GET', url: '/users', headers: { cookie: account.cookie } });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      id: account.id,
      name: account.name,
      email: account.email,
      emailNotification: true,
      loginMethod: 'email',
      codehostUsername: null,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(response.json<{ id: string }>().id).not.toBe(other.id);
  });

  it('GET needs a session', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/users' });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ statusCode: 401, error: 'Unauthorized' });
  });

  it('updates name, email (lowercased) and notifications, and the new email logs in', async () => {
    const account = await createAccount(t.app, t.outbox);
    const email = uniqueEmail('Renamed');
    const response = await patch(account.cookie, { name: '  Grace  ', email: email.toUpperCase(), emailNotification: false });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ id: account.id, name: 'Grace', email: email.toLowerCase(), emailNotification: false });

    const partial = await patch(account.cookie, { emailNotification: true });
    expect(partial.json()).toEqual({ id: account.id, name: 'Grace', email: email.toLowerCase(), emailNotification: true });
    const login = await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email, password: account.password } });
    expect(login.statusCode).toBe(200);
  });

  it.each([
    ['an empty body', {}],
    ['an empty name', { name: '' }],
    ['a blank name', { name: '   ' }],
    ['a name over 56 characters', { name: 'n'.repeat(57) }],
    ['an invalid email', { email: 'nope' }],
    ['a string for emailNotification', { emailNotification: 'yes' }],
  ])('refuses %s with 400', async (_label, payload) => {
    const account = await createAccount(t.app, t.outbox);
    const response = await patch(account.cookie, payload);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ statusCode: 400, error: 'Bad Request', details: expect.any(Array) });
  });

  it("refuses another account's email with 409", async () => {
    const alice = await createAccount(t.app, t.outbox);
    const bob = await createAccount(t.app, t.outbox);
    const response = await patch(alice.cookie, { email: bob.email.toUpperCase() });
    expect(response.statusCode).toBe(409);
    expect((await t.app.repos.users.findById(alice.id))?.email).toBe(alice.email);
  });

  it('deletes the account and all its data in one go, and nobody else’s', async () => {
    const alice = await createAccount(t.app, t.outbox);
    const bob = await createAccount(t.app, t.outbox);
    const seeded = await seedUserData(t.app.db, alice.id);
    await seedUserData(t.app.db, bob.id);
    await t.app.kv.set(`byok:${alice.id}`, '{}', 60);
    const token = alice.cookie.slice('session='.length);

    const response = await t.app.inject({ method: 'DELETE', url: '/users', headers: { cookie: alice.cookie } });
    expect(response.statusCode).toBe(204);
    const cleared = Object.fromEntries(response.cookies.map((cookie) => [cookie.name, cookie.value]));
    expect(cleared).toEqual({ session: '', sessionId: '' });

    expect(await t.app.repos.users.findById(alice.id)).toBeUndefined();
    expect(await countUserRows(t.app.db, alice.id)).toEqual({ pullRequests: 0, reviews: 0, repositories: 0, aiConversations: 0, workspaceSettings: 0, byokProviders: 0, usage: 0 });
    expect(await t.app.db.select().from(aiMessages).where(eq(aiMessages.conversationId, seeded.conversationId))).toEqual([]);
    expect(await t.app.db.select().from(sessions).where(eq(sessions.userId, alice.id))).toEqual([]);
    expect(await t.app.kv.get(`session:${sha256Hex(token)}`)).toBeNull();
    expect(await t.app.kv.get(`byok:${alice.id}`)).toBeNull();

    expect(await countUserRows(t.app.db, bob.id)).toEqual({ pullRequests: 1, reviews: 1, repositories: 1, aiConversations: 1, workspaceSettings: 1, byokProviders: 1, usage: 1 });
    expect((await t.app.inject({ method: 'GET', url: '/auth/session', headers: { cookie: alice.cookie } })).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'GET', url: '/auth/session', headers: { cookie: bob.cookie } })).statusCode).toBe(200);

    // The email is free again.
    const again = await t.app.inject({ method: 'POST', url: '/auth/signup', payload: { name: 'Alice', email: alice.email, password: 'another password' } });
    expect(again.statusCode).toBe(201);
  });
});

describe('/usage', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { FREE_ALLOWANCE_USD: '1.25' } });
  });
  afterAll(() => t.close());

  it('creates the usage record on first read, with the configured allowance', async () => {
    const account = await createAccount(t.app, t.outbox);
    const response = await t.app.inject({ method: 'GET', url: '/usage', headers: { cookie: account.cookie } });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ utilizedCost: 0, allowedExpenditureLimit: 1.25 });
    expect((await t.app.repos.usage.getOrCreate(personal(account.id))).inputCost).toBe(0);
  });

  it('sums input and output cost, by /usage and by /usage/:ownId', async () => {
    const account = await createAccount(t.app, t.outbox);
    await seedUserData(t.app.db, account.id);
    for (const url of ['/usage', `/usage/${account.id}`]) {
      const response = await t.app.inject({ method: 'GET', url, headers: { cookie: account.cookie } });
      expect(response.json()).toEqual({ utilizedCost: 0.03, allowedExpenditureLimit: 1.25 });
    }
  });

  // Another user's usage (403) is in auth-security.test.ts.
  it('refuses a malformed id (400)', async () => {
    const account = await createAccount(t.app, t.outbox);
    expect((await t.app.inject({ method: 'GET', url: '/usage/not-a-uuid', headers: { cookie: account.cookie } })).statusCode).toBe(400);
  });
});
