import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_TOKEN_PREFIX, MAX_TOKENS_PER_USER } from '../../src/services/api-token-service.js';
import { randomBase62, sha256Hex } from '../../src/lib/crypto/tokens.js';
import { createAccount } from '../helpers/accounts.js';
import { createToken } from '../helpers/api-tokens.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

describe('API tokens: errors (decisions.md §4, §17)', () => {
  let t: TestApp;
  let cookie: string;
  beforeAll(async () => {
    t = await createTestApp();
    cookie = (await createAccount(t.app, t.outbox)).cookie;
  });
  afterAll(() => t.close());

  it.each([
    ['no name', {}, 'body.name'],
    ['an empty name', { name: '' }, 'body.name'],
    ['a blank name', { name: '   ' }, 'body.name'],
    ['a name over 100 characters', { name: 'n'.repeat(101) }, 'body.name'],
    ['a name that is not a string', { name: 7 }, 'body.name'],
    ['expiresInDays 0', { name: 'a', expiresInDays: 0 }, 'body.expiresInDays'],
    ['expiresInDays 366', { name: 'a', expiresInDays: 366 }, 'body.expiresInDays'],
    ['a fractional expiresInDays', { name: 'a', expiresInDays: 1.5 }, 'body.expiresInDays'],
    ['expiresInDays as a string', { name: 'a', expiresInDays: '30' }, 'body.expiresInDays'],
    ['a negative expiresInDays', { name: 'a', expiresInDays: -1 }, 'body.expiresInDays'],
  ])('POST /auth/tokens with %s is 400 naming the field', async (_label, payload, path) => {
    const response = await t.app.inject({ method: 'POST', url: '/auth/tokens', headers: { cookie }, payload });
    expect(response.statusCode).toBe(400);
    const body = response.json<{ statusCode: number; error: string; message: string; details: Array<{ path: string }> }>();
    expect(body).toMatchObject({ statusCode: 400, error: 'Bad Request', message: expect.any(String) });
    expect(body.details.map((detail) => detail.path)).toContain(path);
  });

  it.each<[string, string, object?]>([
    ['POST', '/auth/tokens', { name: 'a' }],
    ['GET', '/auth/tokens'],
    ['DELETE', '/auth/tokens/00000000-0000-4000-8000-000000000000'],
  ])('%s %s without credentials is the usual 401', async (method, url, payload) => {
    const response = await t.app.inject({ method: method as 'GET', url, payload });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({ statusCode: 401, error: 'Unauthorized', message: expect.any(String) });
    expect(response.headers['www-authenticate']).toBeUndefined();
  });

  it('DELETE of an unknown token is 404, of a malformed id 400', async () => {
    const unknown = await t.app.inject({ method: 'DELETE', url: '/auth/tokens/00000000-0000-4000-8000-000000000000', headers: { cookie } });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ statusCode: 404, error: 'Not Found' });
    const malformed = await t.app.inject({ method: 'DELETE', url: '/auth/tokens/not-a-uuid', headers: { cookie } });
    expect(malformed.statusCode).toBe(400);
  });

  it('DELETE twice: the second is 404', async () => {
    const { id } = await createToken(t.app, cookie);
    expect((await t.app.inject({ method: 'DELETE', url: `/auth/tokens/${id}`, headers: { cookie } })).statusCode).toBe(204);
    expect((await t.app.inject({ method: 'DELETE', url: `/auth/tokens/${id}`, headers: { cookie } })).statusCode).toBe(404);
  });

  it('at most 50 unexpired tokens: the 51st is 409; expired ones do not count; revoking frees a place', async () => {
    const account = await createAccount(t.app, t.outbox);
    // Two expired tokens, written as time would have left them.
    for (let i = 0; i < 2; i++) {
      const token = API_TOKEN_PREFIX + randomBase62(40);
      await t.app.repos.apiTokens.createWithinLimit(
        { userId: account.id, name: `old ${i}`, tokenHash: sha256Hex(token), prefix: token.slice(0, 8), createdAt: new Date(Date.now() - 10_000), expiresAt: new Date(Date.now() - 1_000) },
        MAX_TOKENS_PER_USER,
      );
    }
    const created = [];
    for (let i = 0; i < MAX_TOKENS_PER_USER; i++) created.push(await createToken(t.app, account.cookie, { name: `t${i}` }));
    const refused = await t.app.inject({ method: 'POST', url: '/auth/tokens', headers: { cookie: account.cookie }, payload: { name: 'one too many' } });
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ statusCode: 409, error: 'Conflict', message: expect.stringContaining('50') });

    const listed = (await t.app.inject({ method: 'GET', url: '/auth/tokens', headers: { cookie: account.cookie } })).json<unknown[]>();
    expect(listed).toHaveLength(MAX_TOKENS_PER_USER);
    await t.app.inject({ method: 'DELETE', url: `/auth/tokens/${created[0]!.id}`, headers: { cookie: account.cookie } });
    await createToken(t.app, account.cookie, { name: 'after a revoke' });
  });

  it('the limit holds when many creations race', async () => {
    const account = await createAccount(t.app, t.outbox);
    const answers = await Promise.all(
      Array.from({ length: MAX_TOKENS_PER_USER + 5 }, (_, i) => t.app.inject({ method: 'POST', url: '/auth/tokens', headers: { cookie: account.cookie }, payload: { name: `r${i}` } })),
    );
    expect(answers.filter((answer) => answer.statusCode === 201)).toHaveLength(MAX_TOKENS_PER_USER);
    expect(answers.filter((answer) => answer.statusCode === 409)).toHaveLength(5);
  });
});
