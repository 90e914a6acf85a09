import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../helpers/accounts.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

describe('/workspace/aiSettings', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ role: 'api' });
  });
  afterAll(() => t.close());

  const call = (cookie: string, method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object) => t.app.inject({ method, url, headers: { cookie }, payload });

  it('creates (201), reads as an array, and refuses a second creation (409)', async () => {
    const account = await createAccount(t.app, t.outbox);
    expect((await call(account.cookie, 'GET', '/workspace/aiSettings')).json()).toEqual([]);
    const created = await call(account.cookie, 'POST', '/workspace/aiSettings', { quickModeModel: 'gpt-4o-mini', focusedModeModel: 'claude-sonnet', deepModeModel: 'o3', systemPrompt: 'We use Go 1.22.' });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toEqual({ message: 'Resource created successfully' });
    const [settings] = (await call(account.cookie, 'GET', '/workspace/aiSettings')).json<Array<Record<string, unknown>>>();
    expect(settings).toMatchObject({
      id: expect.any(String),
      quickModeModel: 'gpt-4o-mini',
      focusedModeModel: 'claude-sonnet',
      deepModeModel: 'o3',
      systemPrompt: 'We use Go 1.22.',
      quickModePrompt: null,
      foucsedModePrompt: null,
      deepModePrompt: null,
    });
    expect(settings).not.toHaveProperty('userId');
    expect((await call(account.cookie, 'POST', '/workspace/aiSettings', { systemPrompt: 'again' })).statusCode).toBe(409);
  });

  it('PATCH changes only the fields sent (204), spelling foucsedModePrompt as the document does', async () => {
    const account = await createAccount(t.app, t.outbox);
    await call(account.cookie, 'POST', '/workspace/aiSettings', { quickModeModel: 'a', systemPrompt: 'keep me' });
    const patched = await call(account.cookie, 'PATCH', '/workspace/aiSettings', { foucsedModePrompt: 'Look for races.', quickModeModel: null });
    expect(patched.statusCode).toBe(204);
    const [settings] = (await call(account.cookie, 'GET', '/workspace/aiSettings')).json<Array<Record<string, unknown>>>();
    expect(settings).toMatchObject({ quickModeModel: null, systemPrompt: 'keep me', foucsedModePrompt: 'Look for races.' });
  });

  it('PATCH before any POST creates the record', async () => {
    const account = await createAccount(t.app, t.outbox);
    expect((await call(account.cookie, 'PATCH', '/workspace/aiSettings', { deepModePrompt: 'Be thorough.' })).statusCode).toBe(204);
    expect((await call(account.cookie, 'GET', '/workspace/aiSettings')).json()).toEqual([expect.objectContaining({ deepModePrompt: 'Be thorough.' })]);
  });

  it('another tab is a 404, for every method', async () => {
    const account = await createAccount(t.app, t.outbox);
    for (const method of ['GET', 'POST', 'PATCH'] as const) {
      const response = await call(account.cookie, method, '/workspace/billing', method === 'GET' ? undefined : {});
      expect(response.statusCode).toBe(404);
      expect(response.json()).toMatchObject({ statusCode: 404, error: 'Not Found' });
    }
  });

  it.each([
    ['an unknown field', { focusedModePrompt: 'the correctly spelled name is not the API’s' }],
    ['a number for a model', { quickModeModel: 42 }],
    ['a model slug over 256 characters', { quickModeModel: 'm'.repeat(257) }],
    ['a prompt over 20,000 characters', { systemPrompt: 'p'.repeat(20_001) }],
  ])('refuses %s with 400', async (_label, payload) => {
    const account = await createAccount(t.app, t.outbox);
    expect((await call(account.cookie, 'PATCH', '/workspace/aiSettings', payload)).statusCode).toBe(400);
    expect((await call(account.cookie, 'POST', '/workspace/aiSettings', payload)).statusCode).toBe(400);
  });

  it('each user sees and changes only their own settings', async () => {
    const alice = await createAccount(t.app, t.outbox);
    const bob = await createAccount(t.app, t.outbox);
    await call(alice.cookie, 'POST', '/workspace/aiSettings', { systemPrompt: 'Alice only' });
    expect((await call(bob.cookie, 'GET', '/workspace/aiSettings')).json()).toEqual([]);
    await call(bob.cookie, 'PATCH', '/workspace/aiSettings', { systemPrompt: 'Bob' });
    expect((await call(alice.cookie, 'GET', '/workspace/aiSettings')).json()).toEqual([expect.objectContaining({ systemPrompt: 'Alice only' })]);
    expect((await t.app.inject({ method: 'GET', url: '/workspace/aiSettings' })).statusCode).toBe(401);
  });
});
