import { eq } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { byokProviders } from '../../src/db/schema/index.js';
import { createAccount, type Account } from '../helpers/accounts.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { FakeAiProvider, fakeApiKey, type FakeProviderFlavor } from '../fakes/fake-ai-providers.js';

const FLAVORS: FakeProviderFlavor[] = ['openai', 'anthropic', 'google', 'openrouter', 'custom'];
const MASK = '••••••••••••';
const PLATFORM_MODELS = [{ id: 'platform-model', name: 'Platform Model', contextLength: 64_000, inputPrice: 1, outputPrice: 2 }];

describe('/byok', () => {
  const fakes = {} as Record<FakeProviderFlavor, FakeAiProvider>;
  let t: TestApp;
  /** The responses of the running test: after each, none may carry a key sent in the suite. */
  let responses: string[] = [];
  /** Every key the suite has sent, good or rejected. */
  const keys = new Set<string>();

  beforeAll(async () => {
    for (const flavor of FLAVORS) {
      fakes[flavor] = await FakeAiProvider.start(flavor);
      keys.add(fakes[flavor].apiKey);
    }
    t = await createTestApp({
      role: 'api',
      env: {
        BYOK_OPENAI_BASE_URL: fakes.openai.url,
        BYOK_ANTHROPIC_BASE_URL: fakes.anthropic.url,
        BYOK_GOOGLE_BASE_URL: fakes.google.url,
        BYOK_OPENROUTER_BASE_URL: fakes.openrouter.url,
        PLATFORM_AI_BASE_URL: 'http://platform.invalid/v1',
        PLATFORM_MODELS: JSON.stringify(PLATFORM_MODELS),
      },
    });
  });
  afterAll(async () => {
    await t.close();
    for (const fake of Object.values(fakes)) await fake.stop();
  });
  beforeEach(() => {
    responses = [];
    for (const fake of Object.values(fakes)) fake.reset();
  });
  afterEach(() => {
    const everything = responses.join('\n');
    const logs = t.logs.join('');
    expect(responses.length).toBeGreaterThan(0);
    for (const key of keys) {
      expect(everything, 'a response carries a key').not.toContain(key);
      expect(logs, 'a log line carries a key').not.toContain(key);
    }
  });

  const call = async (account: Account, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object): Promise<LightMyRequestResponse> => {
    const apiKey = (payload as { apiKey?: unknown } | undefined)?.apiKey;
    if (typeof apiKey === 'string' && apiKey.length >= 8 && apiKey !== MASK) keys.add(apiKey);
    const response = await t.app.inject({ method, url, headers: { cookie: account.cookie }, payload });
    responses.push(response.body);
    return response;
  };
  const register = (account: Account, flavor: FakeProviderFlavor, extra: object = {}) =>
    call(account, 'POST', '/byok', {
      modelProviderName: flavor,
      apiKey: fakes[flavor].apiKey,
      ...(flavor === 'custom' ? { customBaseUrl: fakes.custom.url } : {}),
      ...extra,
    });

  it.each(FLAVORS)('registers a %s key after probing its model list (201), chat models only', async (flavor) => {
    const account = await createAccount(t.app, t.outbox);
    const response = await register(account, flavor);
    expect(response.statusCode, response.body).toBe(201);
    const body = response.json<{ message: string; id: string; models: Array<{ id: string; name: string; contextLength: number | null }> }>();
    expect(body).toMatchObject({ message: expect.any(String), id: expect.any(String) });
    expect(body.models.length).toBeGreaterThan(0);
    expect(body.models.some((model) => /embed|whisper|tts|dall-e|imagen|moderation/.test(model.id))).toBe(false);
    expect(fakes[flavor].requests.length).toBeGreaterThan(0);

    const [row] = await t.app.db.select().from(byokProviders).where(eq(byokProviders.id, body.id));
    expect(row!.apiKey).toMatch(/^v1\./);
    expect(row!.apiKey).not.toContain(fakes[flavor].apiKey);
    expect(t.app.secretBox.decrypt(row!.apiKey)).toBe(fakes[flavor].apiKey);

    const list = (await call(account, 'GET', '/byok')).json<Array<Record<string, unknown>>>();
    expect(list).toEqual([
      {
        id: body.id,
        modelProviderName: flavor,
        customModels: false,
        customBaseUrl: flavor === 'custom' ? fakes.custom.url : null,
        enabled: true,
        availableModels: body.models,
        createdAt: expect.any(String),
      },
    ]);
  });

  it('a second registration of the provider updates it in place (200), and a masked key keeps the stored one', async () => {
    const account = await createAccount(t.app, t.outbox);
    const first = (await register(account, 'openai')).json<{ id: string }>();
    fakes.openai.reset();
    const again = await call(account, 'POST', '/byok', { modelProviderName: 'openai', apiKey: MASK, enabled: false });
    expect(again.statusCode).toBe(200);
    expect(again.json<{ id: string }>().id).toBe(first.id);
    // The probe went out with the stored key.
    expect(fakes.openai.requests.at(-1)?.headers.authorization).toBe(`Bearer ${fakes.openai.apiKey}`);
    expect((await call(account, 'GET', '/byok')).json()).toEqual([expect.objectContaining({ id: first.id, enabled: false })]);
  });

  it.each([
    ['a key with a mask character inside', 'sk-abc•••def'],
    ['a non-ASCII key', 'sk-clé-secrète'],
    ['a key with a space', 'sk-abc def'],
    ['an empty key', ''],
  ])('refuses %s with 400', async (_label, apiKey) => {
    const account = await createAccount(t.app, t.outbox);
    const response = await call(account, 'POST', '/byok', { modelProviderName: 'openai', apiKey });
    expect(response.statusCode).toBe(400);
    expect(response.json<{ details: Array<{ path: string }> }>().details[0]?.path).toBe('body.apiKey');
  });

  it('refuses a masked key for a provider that has none stored, an unknown provider and a custom provider without a URL', async () => {
    const account = await createAccount(t.app, t.outbox);
    expect((await call(account, 'POST', '/byok', { modelProviderName: 'openai', apiKey: MASK })).statusCode).toBe(400);
    expect((await call(account, 'POST', '/byok', { modelProviderName: 'mistral', apiKey: 'sk-x' })).statusCode).toBe(400);
    expect((await call(account, 'POST', '/byok', { modelProviderName: 'custom', apiKey: 'sk-x' })).statusCode).toBe(400);
    expect((await call(account, 'POST', '/byok', { apiKey: 'sk-x', customBaseUrl: 'ftp://models.example.com' })).statusCode).toBe(400);
  });

  it('turns a rejected key into a 400 that says so, and stores nothing', async () => {
    const account = await createAccount(t.app, t.outbox);
    for (const flavor of FLAVORS) {
      const response = await register(account, flavor, { apiKey: fakeApiKey(flavor) });
      expect(response.statusCode, `${flavor}: ${response.body}`).toBe(400);
      expect(response.json<{ message: string }>().message).toMatch(/rejected the API key/);
    }
    expect((await call(account, 'GET', '/byok')).json()).toEqual([]);
  });

  it('a public provider that is down is a 503; the user’s own endpoint that is down is a 400', async () => {
    const account = await createAccount(t.app, t.outbox);
    fakes.openai.fault = { kind: 'status', status: 500 };
    expect((await register(account, 'openai')).statusCode).toBe(503);
    const unreachable = await call(account, 'POST', '/byok', { modelProviderName: 'custom', apiKey: 'sk-local', customBaseUrl: 'http://127.0.0.1:1/v1' });
    expect(unreachable.statusCode).toBe(400);
  });

  it('accepts a user-defined model list for a gateway without a model list', async () => {
    const account = await createAccount(t.app, t.outbox);
    fakes.custom.fault = { kind: 'status', status: 404, path: '/models' };
    const response = await call(account, 'POST', '/byok', {
      modelProviderName: 'custom',
      apiKey: fakes.custom.apiKey,
      customBaseUrl: fakes.custom.url,
      customModels: ['my-finetune', { id: 'llama-70b', name: 'Llama 70B', contextLength: 8192 }],
    });
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json<{ models: unknown[] }>().models).toEqual([
      { id: 'my-finetune', name: 'my-finetune', contextLength: null },
      { id: 'llama-70b', name: 'Llama 70B', contextLength: 8192 },
    ]);
    expect((await call(account, 'GET', '/byok')).json()).toEqual([expect.objectContaining({ customModels: true })]);
  });

  it('POST /byok/model-list probes without storing: the provider’s models, then the platform entry', async () => {
    const account = await createAccount(t.app, t.outbox);
    const response = await call(account, 'POST', '/byok/model-list', { modelProviderName: 'anthropic', apiKey: fakes.anthropic.apiKey });
    expect(response.statusCode).toBe(200);
    const { byokModels } = response.json<{ byokModels: Array<Record<string, unknown>> }>();
    expect(byokModels.length).toBeGreaterThan(1);
    expect(byokModels.at(-1)).toEqual({
      id: '1',
      modelProviderName: 'platform',
      customModels: false,
      customBase: 'http://platform.invalid/v1/chat/completions',
      availableModels: [{ id: 'platform-model', name: 'Platform Model', contextLength: 64_000 }],
    });
    expect((await call(account, 'GET', '/byok')).json()).toEqual([]);
    expect((await call(account, 'POST', '/byok/model-list', { modelProviderName: 'anthropic', apiKey: MASK })).statusCode).toBe(400);
  });

  it('GET /byok/model-list: enabled providers then the platform; missing metadata is fetched once, then cached', async () => {
    const account = await createAccount(t.app, t.outbox);
    const openai = (await register(account, 'openai')).json<{ id: string }>();
    const google = (await register(account, 'google')).json<{ id: string }>();
    await call(account, 'PATCH', `/byok/providers/${google.id}`, { enabled: false });
    await call(account, 'PATCH', `/byok/providers/${openai.id}`, { availableModels: null });

    fakes.openai.reset();
    const first = (await call(account, 'GET', '/byok/model-list')).json<Array<Record<string, unknown>>>();
    expect(first.map((entry) => entry.modelProviderName)).toEqual(['openai', 'platform']);
    expect(first[0]).toMatchObject({ id: openai.id, customModels: false, customBase: fakes.openai.url, availableModels: expect.any(Array) });
    expect(fakes.openai.requests).toHaveLength(1);

    const second = (await call(account, 'GET', '/byok/model-list')).json();
    expect(second).toEqual(first);
    expect(fakes.openai.requests).toHaveLength(1);
  });

  it('caches the user’s providers under byok:<userId> for a day, and every change invalidates it', async () => {
    const account = await createAccount(t.app, t.outbox);
    const key = `byok:${account.id}`;
    const { id } = (await register(account, 'openrouter')).json<{ id: string }>();
    expect(await t.app.kv.get(key)).toBeNull();
    await call(account, 'GET', '/byok');
    const cached = await t.app.kv.get(key);
    expect(cached).not.toBeNull();
    expect(cached).not.toContain(fakes.openrouter.apiKey);

    const changes: Array<() => Promise<unknown>> = [
      () => call(account, 'POST', '/byok', { modelProviderName: 'openrouter', apiKey: MASK }),
      () => call(account, 'PATCH', `/byok/providers/${id}`, { enabled: false }),
      () => call(account, 'PATCH', '/byok/providers', { modelProviderName: 'openrouter', enabled: true }),
      () => call(account, 'DELETE', `/byok/providers/${id}`),
    ];
    for (const change of changes) {
      await call(account, 'GET', '/byok');
      expect(await t.app.kv.get(key)).not.toBeNull();
      await change();
      expect(await t.app.kv.get(key)).toBeNull();
    }
  });

  it('GET /byok/providers gives connection cards', async () => {
    const account = await createAccount(t.app, t.outbox);
    const { id, models } = (await register(account, 'custom')).json<{ id: string; models: unknown[] }>();
    expect((await call(account, 'GET', '/byok/providers')).json()).toEqual([
      { id, modelProviderName: 'custom', enabled: true, customBaseUrl: fakes.custom.url, modelCount: models.length, createdAt: expect.any(String), updatedAt: expect.any(String) },
    ]);
  });

  it('PATCH by id or by name in the body; 400 without a name or with no match; 409 renaming onto another', async () => {
    const account = await createAccount(t.app, t.outbox);
    const openai = (await register(account, 'openai')).json<{ id: string }>();
    await register(account, 'anthropic');

    const byId = await call(account, 'PATCH', `/byok/providers/${openai.id}`, { enabled: false, customModels: true });
    expect(byId.statusCode).toBe(200);
    expect(byId.json()).toEqual({ message: expect.any(String), provider: { id: openai.id, modelProviderName: 'openai', enabled: false, updatedAt: expect.any(String) } });

    const byBody = await call(account, 'PATCH', '/byok/providers', { modelProviderName: 'openai', enabled: true });
    expect(byBody.json<{ provider: { enabled: boolean } }>().provider.enabled).toBe(true);
    expect((await call(account, 'PATCH', '/byok/providers', { enabled: true })).statusCode).toBe(400);
    expect((await call(account, 'PATCH', '/byok/providers', { modelProviderName: 'google', enabled: true })).statusCode).toBe(400);
    expect((await call(account, 'PATCH', `/byok/providers/${openai.id}`, { modelProviderName: 'anthropic' })).statusCode).toBe(409);
    expect((await call(account, 'PATCH', `/byok/providers/${openai.id}`, { customBaseURL: 'javascript:alert(1)' })).statusCode).toBe(400);
    expect((await call(account, 'PATCH', '/byok/providers/openai', { customBaseURL: `${fakes.openai.url}/` })).statusCode).toBe(200);
  });

  it('DELETE by id or by provider name (204); unknown is 404', async () => {
    const account = await createAccount(t.app, t.outbox);
    const { id } = (await register(account, 'google')).json<{ id: string }>();
    await register(account, 'openrouter');
    expect((await call(account, 'DELETE', `/byok/providers/${id}`)).statusCode).toBe(204);
    expect((await call(account, 'DELETE', '/byok/providers/openrouter')).statusCode).toBe(204);
    expect((await call(account, 'GET', '/byok')).json()).toEqual([]);
    expect((await call(account, 'DELETE', `/byok/providers/${id}`)).statusCode).toBe(404);
    expect((await call(account, 'DELETE', '/byok/providers/anthropic')).statusCode).toBe(404);
  });

  it('another user’s provider is a 404 to read through, change or delete', async () => {
    const owner = await createAccount(t.app, t.outbox);
    const intruder = await createAccount(t.app, t.outbox);
    const { id } = (await register(owner, 'openai')).json<{ id: string }>();
    expect((await call(intruder, 'PATCH', `/byok/providers/${id}`, { enabled: false })).statusCode).toBe(404);
    expect((await call(intruder, 'DELETE', `/byok/providers/${id}`)).statusCode).toBe(404);
    expect((await call(intruder, 'GET', '/byok')).json()).toEqual([]);
    expect((await call(owner, 'GET', '/byok')).json()).toEqual([expect.objectContaining({ id, enabled: true })]);
    for (const url of ['/byok', '/byok/providers', '/byok/model-list']) expect((await t.app.inject({ method: 'GET', url })).statusCode).toBe(401);
  });
});

describe('/byok base URLs an operator restricts', () => {
  it('refuses link-local addresses always, and private networks when BYOK_ALLOW_PRIVATE_NETWORKS=false', async () => {
    const open = await createTestApp({ role: 'api' });
    const strict = await createTestApp({ role: 'api', env: { BYOK_ALLOW_PRIVATE_NETWORKS: 'false' } });
    try {
      const openAccount = await createAccount(open.app, open.outbox);
      const strictAccount = await createAccount(strict.app, strict.outbox);
      const attempt = (t: TestApp, account: Account, url: string) =>
        t.app.inject({ method: 'POST', url: '/byok', headers: { cookie: account.cookie }, payload: { modelProviderName: 'custom', apiKey: 'sk-x', customBaseUrl: url } });
      const metadata = await attempt(open, openAccount, 'http://169.254.169.254/latest');
      expect(metadata.statusCode).toBe(400);
      expect(metadata.json<{ message: string }>().message).toMatch(/does not call/);
      for (const url of ['http://127.0.0.1:11434/v1', 'http://10.1.2.3/v1', 'http://192.168.1.5:8000/v1', 'http://[::1]:8080/v1', 'http://localhost:1234/v1']) {
        const response = await attempt(strict, strictAccount, url);
        expect(response.statusCode, url).toBe(400);
        expect(response.json<{ message: string }>().message, url).toMatch(/does not call/);
      }
    } finally {
      await open.close();
      await strict.close();
    }
  });
});
