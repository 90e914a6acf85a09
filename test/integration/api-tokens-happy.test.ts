import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createAccount } from '../helpers/accounts.js';
import { bearer, createToken } from '../helpers/api-tokens.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('API tokens: create, use, list, revoke (decisions.md §17)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());
  afterEach(() => {
    vi.useRealTimers();
  });

  const list = async (cookie: string) => {
    const response = await t.app.inject({ method: 'GET', url: '/auth/tokens', headers: { cookie } });
    expect(response.statusCode, response.body).toBe(200);
    return response.json<Array<{ id: string; name: string; prefix: string; createdAt: string; lastUsedAt: string | null; expiresAt: string }>>();
  };

  it('creates a token shown once: prt_ and base62, its prefix, 90 days by default', async () => {
    const account = await createAccount(t.app, t.outbox);
    const response = await t.app.inject({ method: 'POST', url: '/auth/tokens', headers: { cookie: account.cookie }, payload: { name: '  laptop  ' } });
    expect(response.statusCode).toBe(201);
    const body = response.json<{ id: string; token: string; prefix: string; createdAt: string; expiresAt: string }>();
    expect(body).toEqual({ id: expect.any(String), name: 'laptop', token: expect.stringMatching(/^prt_[0-9A-Za-z]{32,}$/), prefix: body.token.slice(0, 8), createdAt: expect.stringMatching(ISO_MS), expiresAt: expect.stringMatching(ISO_MS) });
    expect(Date.parse(body.expiresAt) - Date.parse(body.createdAt)).toBe(90 * DAY_MS);

    const [listed, ...rest] = await list(account.cookie);
    expect(rest).toEqual([]);
    expect(listed).toEqual({ id: body.id, name: 'laptop', prefix: body.prefix, createdAt: body.createdAt, lastUsedAt: null, expiresAt: body.expiresAt });
  });

  it('honours expiresInDays from 1 to 365 and lists the newest first', async () => {
    const account = await createAccount(t.app, t.outbox);
    const short = await createToken(t.app, account.cookie, { name: 'short', expiresInDays: 1 });
    const long = await createToken(t.app, account.cookie, { name: 'long', expiresInDays: 365 });
    expect(Date.parse(short.expiresAt) - Date.parse(short.createdAt)).toBe(DAY_MS);
    expect(Date.parse(long.expiresAt) - Date.parse(long.createdAt)).toBe(365 * DAY_MS);
    expect(short.token).not.toBe(long.token);
    expect((await list(account.cookie)).map((token) => token.name)).toEqual(['long', 'short']);
  });

  it('a token authenticates as its user wherever a session does', async () => {
    const account = await createAccount(t.app, t.outbox);
    const { token } = await createToken(t.app, account.cookie);
    const session = await t.app.inject({ method: 'GET', url: '/auth/session', headers: bearer(token) });
    expect(session.statusCode).toBe(200);
    expect(session.json()).toEqual({ userId: account.id, session: { id: null, createdAt: null, expiresAt: null, userAgent: null } });
    for (const url of ['/users', '/usage', '/pull-request/list', '/review/list', '/byok/providers', '/auth/sessions']) {
      const response = await t.app.inject({ method: 'GET', url, headers: bearer(token) });
      expect(response.statusCode, `${url}: ${response.body}`).toBe(200);
    }
    expect((await t.app.inject({ method: 'GET', url: '/users', headers: bearer(token) })).json()).toMatchObject({ id: account.id, email: account.email });
    // No cookie session is the current one.
    const sessions = (await t.app.inject({ method: 'GET', url: '/auth/sessions', headers: bearer(token) })).json<Array<{ current: boolean }>>();
    expect(sessions.length).toBeGreaterThan(0);
    expect(sessions.every((item) => !item.current)).toBe(true);
    // The scheme is case-insensitive (RFC 6750 follows RFC 7235).
    expect((await t.app.inject({ method: 'GET', url: '/usage', headers: { authorization: `bearer ${token}` } })).statusCode).toBe(200);
  });

  it('lastUsedAt is set on first use and moves at most once a minute', async () => {
    const account = await createAccount(t.app, t.outbox);
    const { id, token } = await createToken(t.app, account.cookie);
    const lastUsed = async () => (await list(account.cookie)).find((item) => item.id === id)!.lastUsedAt;

    const before = Date.now();
    await t.app.inject({ method: 'GET', url: '/usage', headers: bearer(token) });
    const first = await lastUsed();
    expect(first).toMatch(ISO_MS);
    expect(Date.parse(first!)).toBeGreaterThanOrEqual(before - 1);

    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 30_000 });
    await t.app.inject({ method: 'GET', url: '/usage', headers: bearer(token) });
    expect(await lastUsed()).toBe(first);

    vi.setSystemTime(Date.parse(first!) + 61_000);
    await t.app.inject({ method: 'GET', url: '/usage', headers: bearer(token) });
    expect(await lastUsed()).toBe(new Date(Date.parse(first!) + 61_000).toISOString());
  });

  it('revoking answers 204 and the token stops working at once', async () => {
    const account = await createAccount(t.app, t.outbox);
    const kept = await createToken(t.app, account.cookie, { name: 'kept' });
    const revoked = await createToken(t.app, account.cookie, { name: 'revoked' });
    expect((await t.app.inject({ method: 'GET', url: '/usage', headers: bearer(revoked.token) })).statusCode).toBe(200);

    const response = await t.app.inject({ method: 'DELETE', url: `/auth/tokens/${revoked.id}`, headers: { cookie: account.cookie } });
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    expect((await t.app.inject({ method: 'GET', url: '/usage', headers: bearer(revoked.token) })).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'GET', url: '/usage', headers: bearer(kept.token) })).statusCode).toBe(200);
    expect((await list(account.cookie)).map((item) => item.name)).toEqual(['kept']);
  });

  it('Sign out everywhere leaves the tokens working', async () => {
    const account = await createAccount(t.app, t.outbox);
    const { token } = await createToken(t.app, account.cookie);
    expect((await t.app.inject({ method: 'DELETE', url: '/auth/logout-all', headers: { cookie: account.cookie } })).statusCode).toBe(204);
    expect((await t.app.inject({ method: 'GET', url: '/auth/session', headers: bearer(token) })).statusCode).toBe(200);
  });
});
