import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/database.js';
import { randomBase62, sha256Hex } from '../../src/lib/crypto/tokens.js';
import { API_TOKEN_PREFIX, MAX_TOKENS_PER_USER } from '../../src/services/api-token-service.js';
import { createAccount, uniqueEmail, type Account } from '../helpers/accounts.js';
import { bearer, createToken } from '../helpers/api-tokens.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

const INVALID_TOKEN = 'Bearer error="invalid_token"';

describe('API tokens: security (decisions.md §17)', () => {
  let t: TestApp;
  let operator: Account;
  let operatorToken: string;
  const operatorEmail = uniqueEmail('operator');
  beforeAll(async () => {
    t = await createTestApp({ env: { OPERATOR_EMAILS: operatorEmail } });
    operator = await createAccount(t.app, t.outbox, { email: operatorEmail });
    operatorToken = (await createToken(t.app, operator.cookie)).token;
  });
  afterAll(() => t.close());

  const withToken = (method: string, url: string, token: string, payload?: object) => t.app.inject({ method: method as 'GET', url, headers: bearer(token), payload });

  it.each<[string, string, object?]>([
    ['POST', '/auth/tokens', { name: 'minted by a token' }],
    ['GET', '/auth/tokens'],
    ['DELETE', '/auth/tokens/00000000-0000-4000-8000-000000000000'],
    ['PATCH', '/auth/reset-password', { oldPassword: 'a long enough password', password: 'another long password' }],
    ['PATCH', '/users', { name: 'Mallory' }],
    ['DELETE', '/users'],
  ])('a valid token on %s %s is 403, and nothing changes', async (method, url, payload) => {
    const account = await createAccount(t.app, t.outbox);
    const { token, id } = await createToken(t.app, account.cookie);
    const response = await withToken(method, url.replace('00000000-0000-4000-8000-000000000000', id), token, payload);
    expect(response.statusCode).toBe(403);
    expect(response.json()).toEqual({ statusCode: 403, error: 'Forbidden', message: expect.any(String) });
    // The account, its password and its tokens are as they were.
    expect((await t.app.inject({ method: 'GET', url: '/users', headers: { cookie: account.cookie } })).json()).toMatchObject({ name: account.name });
    expect((await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email: account.email, password: account.password } })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/auth/tokens', headers: { cookie: account.cookie } })).json()).toHaveLength(1);
  });

  it('/admin/… is 404 to any token, an operator’s own included, and to an invalid one', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/admin/github-app', headers: { cookie: operator.cookie } })).statusCode).toBe(200);
    for (const token of [operatorToken, `${API_TOKEN_PREFIX}${randomBase62(40)}`, 'garbage']) {
      for (const [method, url, payload] of [['GET', '/admin/github-app'], ['POST', '/admin/github-app/manifest', {}]] as const) {
        const response = await withToken(method, url, token, payload);
        expect(response.statusCode, `${method} ${url} with ${token.slice(0, 8)}`).toBe(404);
        expect(response.json()).toMatchObject({ statusCode: 404, error: 'Not Found' });
      }
    }
  });

  it.each([
    ['an unknown token', `${API_TOKEN_PREFIX}${randomBase62(40)}`],
    ['a malformed token', 'prt_short'],
    ['a session cookie value sent as a token', 'f'.repeat(64)],
    ['an empty Bearer credential', ''],
  ])('%s is 401 with WWW-Authenticate: Bearer error="invalid_token"', async (_label, token) => {
    const response = await t.app.inject({ method: 'GET', url: '/auth/session', headers: { authorization: `Bearer ${token}`.trim() } });
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe(INVALID_TOKEN);
    expect(response.json()).toEqual({ statusCode: 401, error: 'Unauthorized', message: expect.any(String) });
  });

  it('no credentials: today’s 401, without a Bearer challenge; another scheme counts as none', async () => {
    for (const headers of [{}, { authorization: 'Basic dXNlcjpwYXNz' }]) {
      const response = await t.app.inject({ method: 'GET', url: '/auth/session', headers });
      expect(response.statusCode).toBe(401);
      expect(response.headers['www-authenticate']).toBeUndefined();
    }
  });

  it('a revoked token is refused at once, although it was cached', async () => {
    const account = await createAccount(t.app, t.outbox);
    const { id, token } = await createToken(t.app, account.cookie);
    expect((await withToken('GET', '/usage', token)).statusCode).toBe(200);
    const key = `api-token:${sha256Hex(token)}`;
    expect(await t.app.kv.get(key)).not.toBeNull();
    await t.app.inject({ method: 'DELETE', url: `/auth/tokens/${id}`, headers: { cookie: account.cookie } });
    expect(await t.app.kv.get(key)).toBeNull();
    const response = await withToken('GET', '/usage', token);
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe(INVALID_TOKEN);
  });

  it('an expired token is refused, from the database and from a cache entry left behind', async () => {
    const account = await createAccount(t.app, t.outbox);
    const token = API_TOKEN_PREFIX + randomBase62(40);
    const tokenHash = sha256Hex(token);
    const expiresAt = new Date(Date.now() - 1000);
    const stored = await t.app.repos.apiTokens.createWithinLimit(
      { userId: account.id, name: 'expired', tokenHash, prefix: token.slice(0, 8), createdAt: new Date(Date.now() - 60_000), expiresAt },
      MAX_TOKENS_PER_USER,
    );
    expect((await withToken('GET', '/usage', token)).statusCode).toBe(401);
    await t.app.kv.set(`api-token:${tokenHash}`, JSON.stringify({ id: stored!.id, userId: account.id, expiresAt: expiresAt.toISOString() }), 60);
    const response = await withToken('GET', '/usage', token);
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe(INVALID_TOKEN);
    // And it is not listed.
    expect((await t.app.inject({ method: 'GET', url: '/auth/tokens', headers: { cookie: account.cookie } })).json()).toEqual([]);
  });

  it('the table and the cache hold the token’s SHA-256, never the token', async () => {
    const account = await createAccount(t.app, t.outbox);
    const { id, token } = await createToken(t.app, account.cookie);
    await withToken('GET', '/usage', token);
    const rows = await queryRows<Record<string, unknown>>(t.app.db, sql`select * from api_tokens where user_id = ${account.id}`);
    expect(rows).toHaveLength(1);
    const dump = JSON.stringify(rows);
    expect(dump).not.toContain(token);
    expect(dump).not.toContain(token.slice(8));
    expect(rows[0]).toMatchObject({ id, token_hash: sha256Hex(token), prefix: token.slice(0, 8) });
    const cached = await t.app.kv.get(`api-token:${sha256Hex(token)}`);
    expect(cached).not.toBeNull();
    expect(cached).not.toContain(token.slice(8));
  });

  it('neither responses after creation nor the logs carry a token', async () => {
    const account = await createAccount(t.app, t.outbox);
    const { token } = await createToken(t.app, account.cookie);
    const answers = [
      await t.app.inject({ method: 'GET', url: '/auth/tokens', headers: { cookie: account.cookie } }),
      await withToken('GET', '/auth/session', token),
      await withToken('GET', '/users', token),
    ];
    for (const answer of answers) expect(answer.body).not.toContain(token.slice(8));
    expect(t.logs.join('')).not.toContain(token.slice(8));
  });

  it('another user’s token id is 404 to DELETE, and that token keeps working', async () => {
    const alice = await createAccount(t.app, t.outbox);
    const bob = await createAccount(t.app, t.outbox);
    const bobs = await createToken(t.app, bob.cookie);
    const response = await t.app.inject({ method: 'DELETE', url: `/auth/tokens/${bobs.id}`, headers: { cookie: alice.cookie } });
    expect(response.statusCode).toBe(404);
    expect((await withToken('GET', '/auth/session', bobs.token)).json()).toMatchObject({ userId: bob.id });
    expect((await t.app.inject({ method: 'GET', url: '/auth/tokens', headers: { cookie: alice.cookie } })).json()).toEqual([]);
  });

  it('a token acts only for its own user: /usage/:userId of someone else is 403', async () => {
    const alice = await createAccount(t.app, t.outbox);
    const bob = await createAccount(t.app, t.outbox);
    const { token } = await createToken(t.app, alice.cookie);
    expect((await withToken('GET', `/usage/${bob.id}`, token)).statusCode).toBe(403);
    expect((await withToken('GET', `/usage/${alice.id}`, token)).statusCode).toBe(200);
  });

  it('a session cookie and a token together are 400, even when both are valid', async () => {
    const account = await createAccount(t.app, t.outbox);
    const { token } = await createToken(t.app, account.cookie);
    for (const url of ['/auth/session', '/usage', '/auth/tokens']) {
      const response = await t.app.inject({ method: 'GET', url, headers: { cookie: account.cookie, ...bearer(token) } });
      expect(response.statusCode, url).toBe(400);
      expect(response.json()).toMatchObject({ statusCode: 400, error: 'Bad Request' });
    }
  });

  it('logout and logout-all with a token are 400, and sign nothing out', async () => {
    const account = await createAccount(t.app, t.outbox);
    const { token } = await createToken(t.app, account.cookie);
    for (const url of ['/auth/logout', '/auth/logout-all']) {
      const response = await withToken('DELETE', url, token);
      expect(response.statusCode, url).toBe(400);
      expect(response.json()).toMatchObject({ statusCode: 400, error: 'Bad Request' });
    }
    expect((await t.app.inject({ method: 'GET', url: '/auth/session', headers: { cookie: account.cookie } })).statusCode).toBe(200);
    expect((await withToken('GET', '/auth/session', token)).statusCode).toBe(200);
  });

  it('changing the password with a session revokes every token', async () => {
    const account = await createAccount(t.app, t.outbox);
    const tokens = [await createToken(t.app, account.cookie), await createToken(t.app, account.cookie)];
    for (const { token } of tokens) expect((await withToken('GET', '/usage', token)).statusCode).toBe(200);
    const reset = await t.app.inject({ method: 'PATCH', url: '/auth/reset-password', headers: { cookie: account.cookie }, payload: { oldPassword: account.password, password: 'a brand new password' } });
    expect(reset.statusCode).toBe(200);
    for (const { token } of tokens) expect((await withToken('GET', '/usage', token)).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'GET', url: '/auth/tokens', headers: { cookie: account.cookie } })).json()).toEqual([]);
  });

  it('a password reset by recovery code revokes every token', async () => {
    const account = await createAccount(t.app, t.outbox);
    const { token } = await createToken(t.app, account.cookie);
    expect((await withToken('GET', '/usage', token)).statusCode).toBe(200);
    await t.app.inject({ method: 'PATCH', url: '/auth/forgot-password', payload: { email: account.email } });
    const otp = await t.outbox.code(account.email, { subject: 'Reset your password' });
    expect((await t.app.inject({ method: 'PATCH', url: '/auth/verify-forgot-password', payload: { email: account.email, otp } })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'PATCH', url: '/auth/reset-password', payload: { email: account.email, password: 'a brand new password' } })).statusCode).toBe(200);
    expect((await withToken('GET', '/usage', token)).statusCode).toBe(401);
  });

  it('deleting the account (with a session) ends its tokens at once', async () => {
    const account = await createAccount(t.app, t.outbox);
    const { token } = await createToken(t.app, account.cookie);
    expect((await withToken('GET', '/usage', token)).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'DELETE', url: '/users', headers: { cookie: account.cookie } })).statusCode).toBe(204);
    expect(await t.app.kv.get(`api-token:${sha256Hex(token)}`)).toBeNull();
    expect((await withToken('GET', '/usage', token)).statusCode).toBe(401);
  });
});
