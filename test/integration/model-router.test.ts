import { personal } from '../../src/domain/owners.js';
import { generateText, streamText } from 'ai';
import { count, eq, sum } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usage, usageDaily, usageRecords } from '../../src/db/schema/index.js';
import { createAccount, type Account } from '../helpers/accounts.js';
import { registerGateway, startGateway } from '../helpers/byok.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { FakeOpenAIChat } from '../fakes/fake-openai-chat.js';

const PLATFORM_MODELS = [
  { id: 'platform-small', name: 'Platform Small', contextLength: 32_000, inputPrice: 1, outputPrice: 2 },
  { id: 'platform-large', name: 'Platform Large', contextLength: 128_000, inputPrice: 10, outputPrice: 30 },
];
// 100 input tokens at 1 USD/M and 20 output tokens at 2 USD/M.
const SMALL_COST = (100 * 1 + 20 * 2) / 1_000_000;

describe('model router', () => {
  let platform: FakeOpenAIChat;
  let gateway: FakeOpenAIChat;
  let t: TestApp;

  beforeAll(async () => {
    platform = await new FakeOpenAIChat().start();
    platform.apiKey = 'platform-secret';
    gateway = await startGateway({ apiKey: 'sk-gateway-key', models: [{ id: 'gateway-model', context_length: 16_000 }, { id: 'platform-small' }] });
    t = await createTestApp({
      env: {
        PLATFORM_AI_BASE_URL: platform.url,
        PLATFORM_AI_API_KEY: 'platform-secret',
        PLATFORM_MODELS: JSON.stringify(PLATFORM_MODELS),
        FREE_ALLOWANCE_USD: '0.01',
      },
    });
  });
  afterAll(async () => {
    await t.close();
    await platform.stop();
    await gateway.stop();
  });

  const spent = async (account: Account) => (await t.app.inject({ method: 'GET', url: '/usage', headers: { cookie: account.cookie } })).json<{ utilizedCost: number }>().utilizedCost;
  const counters = async (userId: string) => (await t.app.db.select().from(usage).where(eq(usage.userId, userId)))[0];
  const addGateway = (account: Account) => registerGateway(t.app, account.cookie, gateway);

  it('serves the platform default while the allowance lasts, and adds the priced cost', async () => {
    const account = await createAccount(t.app, t.outbox);
    const choice = await t.app.services.models.resolve({ owner: personal(account.id )});
    expect(choice).toMatchObject({ source: 'platform', modelId: 'platform-small', providerName: 'platform', contextLength: 32_000 });
    const result = await generateText({ model: choice.model, prompt: 'Hello' });
    expect(result.text).toBe('ok');
    expect(platform.completions().at(-1)?.headers.authorization).toBe('Bearer platform-secret');
    expect(await spent(account)).toBeCloseTo(SMALL_COST, 9);
    expect(await counters(account.id)).toMatchObject({ inputTokens: 100, outputTokens: 20 });
  });

  it('prices each platform model by its own prices, streamed generations included', async () => {
    const account = await createAccount(t.app, t.outbox);
    const choice = await t.app.services.models.resolve({ owner: personal(account.id), model: 'platform-large' });
    platform.enqueue({ text: 'streamed answer', usage: { promptTokens: 1000, completionTokens: 100, cachedTokens: 400, reasoningTokens: 30 } });
    const stream = streamText({ model: choice.model, prompt: 'Hello' });
    expect(await stream.text).toBe('streamed answer');
    expect(platform.completions().at(-1)?.body.stream_options).toEqual({ include_usage: true });
    expect(await spent(account)).toBeCloseTo((1000 * 10 + 100 * 30) / 1_000_000, 9);
    expect(await counters(account.id)).toMatchObject({ inputTokens: 1000, cachedInputTokens: 400, outputTokens: 100, reasoningTokens: 30 });
  });

  it('refuses platform models with 402 once the allowance is reached, saying to add a key', async () => {
    const account = await createAccount(t.app, t.outbox);
    await t.app.db.insert(usage).values({ userId: account.id, inputCost: 0.006, outputCost: 0.004 });
    const refusal = t.app.services.models.resolve({ owner: personal(account.id )});
    await expect(refusal).rejects.toMatchObject({ statusCode: 402, message: expect.stringMatching(/add an API key/) });
    await expect(t.app.services.models.resolve({ owner: personal(account.id), model: 'platform-small' })).rejects.toMatchObject({ statusCode: 402 });
  });

  it('uses the user’s provider whose catalog has the model, and BYOK spends no allowance', async () => {
    const account = await createAccount(t.app, t.outbox);
    const providerId = await addGateway(account);
    const choice = await t.app.services.models.resolve({ owner: personal(account.id), model: 'gateway-model' });
    expect(choice).toMatchObject({ source: 'byok', providerId, providerName: 'custom', modelId: 'gateway-model', contextLength: 16_000 });
    await generateText({ model: choice.model, prompt: 'Hello' });
    expect(gateway.completions().at(-1)?.headers.authorization).toBe('Bearer sk-gateway-key');
    expect(await spent(account)).toBe(0);
    expect(await counters(account.id)).toMatchObject({ inputTokens: 100, outputTokens: 20 });

    // The gateway also lists a platform model id: the user's own key serves it first.
    expect((await t.app.services.models.resolve({ owner: personal(account.id), model: 'platform-small' })).source).toBe('byok');
  });

  it('a provider named in the request wins, and serves models outside its catalog', async () => {
    const account = await createAccount(t.app, t.outbox);
    const providerId = await addGateway(account);
    const byId = await t.app.services.models.resolve({ owner: personal(account.id), model: 'unlisted-model', provider: { providerId } });
    expect(byId).toMatchObject({ source: 'byok', providerId, modelId: 'unlisted-model' });
    const byName = await t.app.services.models.resolve({ owner: personal(account.id), provider: { modelProviderName: 'custom' } });
    expect(byName).toMatchObject({ providerId, modelId: 'gateway-model' });
  });

  it('a provider of another user, or a disabled one, is not used', async () => {
    const owner = await createAccount(t.app, t.outbox);
    const other = await createAccount(t.app, t.outbox);
    const providerId = await addGateway(owner);
    await expect(t.app.services.models.resolve({ owner: personal(other.id), provider: { providerId } })).rejects.toMatchObject({ statusCode: 404 });
    await t.app.inject({ method: 'PATCH', url: `/byok/providers/${providerId}`, headers: { cookie: owner.cookie }, payload: { enabled: false } });
    await expect(t.app.services.models.resolve({ owner: personal(owner.id), provider: { providerId } })).rejects.toMatchObject({ statusCode: 400 });
    // Disabled, it no longer serves its catalog either: the platform does not offer this model.
    await expect(t.app.services.models.resolve({ owner: personal(owner.id), model: 'gateway-model' })).rejects.toMatchObject({ statusCode: 402 });
  });

  it('falls back to the user’s own key when the allowance is gone and no model was asked for', async () => {
    const account = await createAccount(t.app, t.outbox);
    await addGateway(account);
    await t.app.db.insert(usage).values({ userId: account.id, inputCost: 0.01, outputCost: 0 });
    expect(await t.app.services.models.resolve({ owner: personal(account.id )})).toMatchObject({ source: 'byok', modelId: 'gateway-model' });
  });

  it('takes the model for a review mode from the workspace settings', async () => {
    const account = await createAccount(t.app, t.outbox);
    await t.app.inject({ method: 'POST', url: '/workspace/aiSettings', headers: { cookie: account.cookie }, payload: { deepModeModel: 'platform-large' } });
    expect((await t.app.services.models.resolve({ owner: personal(account.id), mode: 'deep' })).modelId).toBe('platform-large');
    expect((await t.app.services.models.resolve({ owner: personal(account.id), mode: 'quick' })).modelId).toBe('platform-small');
  });

  it('50 concurrent platform generations add exactly 50 costs, to the counters, the records and the daily rollup', async () => {
    const account = await createAccount(t.app, t.outbox);
    const choice = await t.app.services.models.resolve({ owner: personal(account.id )});
    await Promise.all(Array.from({ length: 50 }, (_, index) => generateText({ model: choice.model, prompt: `Hello ${index}` })));
    expect(await spent(account)).toBeCloseTo(50 * SMALL_COST, 9);
    expect(await counters(account.id)).toMatchObject({ inputTokens: 5000, outputTokens: 1000 });
    const [records] = await t.app.db.select({ calls: count() }).from(usageRecords).where(eq(usageRecords.userId, account.id));
    const [daily] = await t.app.db.select({ calls: sum(usageDaily.generations).mapWith(Number), cost: sum(usageDaily.costUsd).mapWith(Number) }).from(usageDaily).where(eq(usageDaily.userId, account.id));
    expect(records).toEqual({ calls: 50 });
    expect(daily!.calls).toBe(50);
    expect(daily!.cost).toBeCloseTo(50 * SMALL_COST, 9);
  });
});
