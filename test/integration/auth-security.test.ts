import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomHex, sha256Hex } from '../../src/lib/crypto/tokens.js';
import { createAccount, sessionCookie, signUp, uniqueEmail } from '../helpers/accounts.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

const PROTECTED: Array<[string, string, object?]> = [
  ['GET', '/auth/session'],
  ['GET', '/auth/sessions'],
  ['DELETE', '/auth/logout'],
  ['DELETE', '/auth/logout-all'],
  ['PATCH', '/users', { name: 'x' }],
  ['DELETE', '/users'],
  ['GET', '/usage'],
  ['GET', '/usage/00000000-0000-4000-8000-000000000000'],
];

describe('auth: sessions and secrets', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it.each(PROTECTED)('%s %s without a session is 401', async (method, url, payload) => {
    const response = await t.app.inject({ method: method as 'GET', url, payload });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({ statusCode: 401, error: 'Unauthorized', message: expect.any(String) });
  });

  it('a forged, malformed or hashed-id cookie is 401', async () => {
    const account = await createAccount(t.app, t.outbox);
    const { session } = (await t.app.inject({ method: 'GET', url: '/auth/session', headers: { cookie: account.cookie } })).json<{ session: { id: string } }>();
    for (const value of [randomHex(32), 'not-hex', '', session.id, `${account.cookie.slice(8)}00`]) {
      const response = await t.app.inject({ method: 'GET', url: '/auth/session', headers: { cookie: `session=${value}` } });
      expect(response.statusCode, value).toBe(401);
    }
  });

  it('a revoked session is refused although it was cached', async () => {
    const account = await createAccount(t.app, t.outbox);
    const token = account.cookie.slice('session='.length);
    expect(await t.app.kv.get(`session:${sha256Hex(token)}`)).not.toBeNull();
    await t.app.inject({ method: 'DELETE', url: '/auth/logout', headers: { cookie: account.cookie } });
    expect(await t.app.kv.get(`session:${sha256Hex(token)}`)).toBeNull();
    expect((await t.app.inject({ method: 'GET', url: '/usage', headers: { cookie: account.cookie } })).statusCode).toBe(401);
  });

  it('an expired session is refused, from the cache and from the database', async () => {
    const account = await createAccount(t.app, t.outbox);
    const token = randomHex(32);
    const id = sha256Hex(token);
    const past = new Date(Date.now() - 1000);
    await t.app.repos.sessions.create({ id, userId: account.id, createdAt: new Date(Date.now() - 60_000), expiresAt: past, userAgent: null });
    expect((await t.app.inject({ method: 'GET', url: '/auth/session', headers: { cookie: `session=${token}` } })).statusCode).toBe(401);
    await t.app.kv.set(`session:${id}`, JSON.stringify({ id, userId: account.id, createdAt: past.toISOString(), expiresAt: past.toISOString(), userAgent: null }), 60);
    expect((await t.app.inject({ method: 'GET', url: '/auth/session', headers: { cookie: `session=${token}` } })).statusCode).toBe(401);
  });

  it('the database is the truth: a session survives the loss of its cache entry', async () => {
    const account = await createAccount(t.app, t.outbox);
    const key = `session:${sha256Hex(account.cookie.slice('session='.length))}`;
    await t.app.kv.delete(key);
    expect((await t.app.inject({ method: 'GET', url: '/auth/session', headers: { cookie: account.cookie } })).statusCode).toBe(200);
    expect(await t.app.kv.get(key)).not.toBeNull();
  });

  it('a session cannot act for another user: /usage/:userId of someone else is 403', async () => {
    const alice = await createAccount(t.app, t.outbox);
    const bob = await createAccount(t.app, t.outbox);
    const response = await t.app.inject({ method: 'GET', url: `/usage/${bob.id}`, headers: { cookie: alice.cookie } });
    expect(response.statusCode).toBe(403);
    expect(response.json()).toMatchObject({ statusCode: 403, error: 'Forbidden' });
  });

  it('no response carries a token, hash or code, and no log line a password, code or token', async () => {
    const password = 'Sup3r-Secret-Passw0rd!';
    const responses: string[] = [];
    const record = <T extends { body: string; headers: Record<string, unknown> }>(response: T) => {
      const { 'set-cookie': _cookie, ...headers } = response.headers;
      responses.push(response.body, JSON.stringify(headers));
      return response;
    };

    const { email, code: otp, response: signup } = await signUp(t.app, t.outbox, { password });
    record(signup);
    const verify = record(await t.app.inject({ method: 'POST', url: '/auth/verify-email', payload: { email, otp } }));
    const cookie = sessionCookie(verify);
    record(await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email, password: 'wrong password!' } }));
    const login = record(await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email, password } }));
    for (const url of ['/auth/session', '/auth/sessions', '/usage']) record(await t.app.inject({ method: 'GET', url, headers: { cookie } }));
    record(await t.app.inject({ method: 'PATCH', url: '/auth/forgot-password', payload: { email } }));
    const recovery = await t.outbox.code(email, { subject: 'Reset your password' });
    record(await t.app.inject({ method: 'PATCH', url: '/auth/verify-forgot-password', payload: { email, otp: recovery } }));
    record(await t.app.inject({ method: 'PATCH', url: '/auth/reset-password', payload: { email, password: `${password}2` } }));

    const user = (await t.app.repos.users.findByEmail(email))!;
    const secrets = [password, `${password}2`, otp, recovery, cookie.slice(8), sessionCookie(login).slice(8), user.password!];
    const everything = responses.join('\n');
    const logs = t.logs.join('');
    for (const secret of secrets) {
      expect(everything).not.toContain(secret);
      expect(logs).not.toContain(secret);
    }
    expect(everything).not.toMatch(/argon2|\bat .*\.ts:\d+/);
    // One line per request, when it is answered, with what the request and the answer were.
    const lines = logs.trim().split('\n').map((line) => JSON.parse(line) as { msg: string; req?: { method: string; url: string }; res?: { statusCode: number }; responseTime?: number });
    const answered = lines.filter((line) => line.msg === 'request completed');
    expect(lines.filter((line) => line.msg === 'incoming request')).toEqual([]);
    expect(answered).toContainEqual(expect.objectContaining({ req: expect.objectContaining({ method: 'GET', url: '/usage' }), res: { statusCode: 200 }, responseTime: expect.any(Number) }));
  });

  it('the cookie is Secure when PUBLIC_URL is https', async () => {
    const secure = await createTestApp({ env: { PUBLIC_URL: 'https://reviews.example.com' } });
    try {
      const account = await createAccount(secure.app, secure.outbox);
      const login = await secure.app.inject({ method: 'POST', url: '/auth/login', payload: { email: account.email, password: account.password } });
      expect(login.cookies.find((item) => item.name === 'session')?.secure).toBe(true);
    } finally {
      await secure.close();
    }
  });
});

describe('auth: rate limits', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { AUTH_RATE_LIMIT_PER_MIN: '3' } });
  });
  afterAll(() => t.close());

  it('limits one IP across the auth endpoints, with Retry-After', async () => {
    const remoteAddress = '203.0.113.7';
    const attempt = (i: number) =>
      t.app.inject({ method: 'POST', url: '/auth/login', remoteAddress, payload: { email: `ip-${i}@example.com`, password: 'whatever1' } });
    for (let i = 0; i < 3; i++) expect((await attempt(i)).statusCode).toBe(401);
    const limited = await attempt(3);
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.json()).toMatchObject({ statusCode: 429, error: 'Too Many Requests' });
    // Another endpoint shares the budget.
    const signup = await t.app.inject({ method: 'POST', url: '/auth/signup', remoteAddress, payload: { name: 'x', email: 'fresh@example.com', password: 'whatever1' } });
    expect(signup.statusCode).toBe(429);
    // Another address does not.
    const other = await t.app.inject({ method: 'POST', url: '/auth/login', remoteAddress: '203.0.113.8', payload: { email: 'ip-9@example.com', password: 'whatever1' } });
    expect(other.statusCode).toBe(401);
  });

  it('limits one email across addresses', async () => {
    const email = uniqueEmail('target');
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const response = await t.app.inject({ method: 'POST', url: '/auth/login', remoteAddress: `198.51.100.${i + 1}`, payload: { email, password: 'guess-number-' + i } });
      statuses.push(response.statusCode);
    }
    expect(statuses).toEqual([401, 401, 401, 429]);
  });
});
