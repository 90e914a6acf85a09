import { describe, expect, it } from 'vitest';
import { fetchCatalog, type ProviderName } from '../../src/ai/catalog/provider-catalog.js';
import type { FakeAiProvider } from '../fakes/fake-ai-providers.js';
import { useFake } from '../helpers/fake-providers.js';

const probe = (provider: ProviderName, fake: FakeAiProvider, apiKey = fake.apiKey) => fetchCatalog({ provider, apiKey, baseUrl: fake.url });

describe('OpenAI catalog', () => {
  const holder = useFake('openai');

  it('keeps chat models only, sorted by id, named by id, without context length', async () => {
    const models = await probe('openai', holder.fake);
    expect(models.map((model) => model.id)).toEqual([
      'chatgpt-4o-latest',
      'ft:gpt-4o-mini-2024-07-18:acme::9AbCdEf',
      'gpt-3.5-turbo',
      'gpt-4.1',
      'gpt-4o',
      'gpt-4o-2024-08-06',
      'gpt-4o-mini',
      'gpt-5',
      'o3-mini',
    ]);
    expect(models[0]).toEqual({ id: 'chatgpt-4o-latest', name: 'chatgpt-4o-latest', contextLength: null });
    expect(models.every((model) => model.name === model.id && model.contextLength === null)).toBe(true);
  });

  it('sends one GET /models with the key as a bearer token', async () => {
    await probe('openai', holder.fake);
    expect(holder.fake.requests).toHaveLength(1);
    const [request] = holder.fake.requests;
    expect(request).toMatchObject({ method: 'GET', path: '/models', query: {} });
    expect(request?.headers.authorization).toBe(`Bearer ${holder.fake.apiKey}`);
    expect(request?.headers['x-api-key']).toBeUndefined();
  });
});

describe('Anthropic catalog', () => {
  const holder = useFake('anthropic');

  it('keeps display names and max_input_tokens where given', async () => {
    expect(await probe('anthropic', holder.fake)).toEqual([
      { id: 'claude-3-5-haiku-20241022', name: 'Claude Haiku 3.5', contextLength: null },
      { id: 'claude-3-7-sonnet-20250219', name: 'Claude Sonnet 3.7', contextLength: null },
      { id: 'claude-3-haiku-20240307', name: 'Claude Haiku 3', contextLength: null },
      { id: 'claude-opus-4-1-20250805', name: 'Claude Opus 4.1', contextLength: 200_000 },
      { id: 'claude-sonnet-4-20250514', name: 'Claude Sonnet 4', contextLength: 1_000_000 },
    ]);
  });

  it('sends x-api-key and anthropic-version, and no bearer token', async () => {
    await probe('anthropic', holder.fake);
    const [request] = holder.fake.requests;
    expect(request?.headers['x-api-key']).toBe(holder.fake.apiKey);
    expect(request?.headers['anthropic-version']).toBe('2023-06-01');
    expect(request?.headers.authorization).toBeUndefined();
  });

  it('asks for 1000 a page and follows after_id while has_more', async () => {
    holder.fake.pageSize = 2;
    const models = await probe('anthropic', holder.fake);
    expect(models).toHaveLength(5);
    expect(holder.fake.requests.map((request) => request.query)).toEqual([
      { limit: '1000' },
      { limit: '1000', after_id: 'claude-sonnet-4-20250514' },
      { limit: '1000', after_id: 'claude-3-5-haiku-20241022' },
    ]);
  });
});

describe('Google catalog', () => {
  const holder = useFake('google');

  it('keeps generateContent models that chat, with display names and input token limits', async () => {
    expect(await probe('google', holder.fake)).toEqual([
      { id: 'gemini-2.0-flash', name: 'Gemini 2.0 Flash', contextLength: 1_048_576 },
      { id: 'gemini-2.5-flash', name: 'Gemini 2.5 Flash', contextLength: 1_048_576 },
      { id: 'gemini-2.5-pro', name: 'Gemini 2.5 Pro', contextLength: 1_048_576 },
      { id: 'gemma-3-27b-it', name: 'Gemma 3 27B', contextLength: 131_072 },
    ]);
  });

  it('sends the key in x-goog-api-key, never in the URL', async () => {
    holder.fake.pageSize = 4;
    await probe('google', holder.fake);
    expect(holder.fake.requests.length).toBeGreaterThan(1);
    for (const request of holder.fake.requests) {
      expect(request.headers['x-goog-api-key']).toBe(holder.fake.apiKey);
      expect(request.headers.authorization).toBeUndefined();
      expect(request.url).not.toContain(holder.fake.apiKey);
      expect(request.query.key).toBeUndefined();
    }
  });

  it('asks for 1000 a page and follows nextPageToken to the last page', async () => {
    holder.fake.pageSize = 4;
    const models = await probe('google', holder.fake);
    expect(models).toHaveLength(4);
    // 14 models, 4 a page: 4 requests, each after the first carrying the previous page's token.
    expect(holder.fake.requests).toHaveLength(4);
    expect(holder.fake.requests.every((request) => request.query.pageSize === '1000')).toBe(true);
    expect(holder.fake.requests[0]?.query.pageToken).toBeUndefined();
    expect(holder.fake.requests.slice(1).every((request) => (request.query.pageToken ?? '') !== '')).toBe(true);
  });

  it('takes a key with no models (an empty body) as an empty catalog', async () => {
    holder.fake.models = [];
    expect(await probe('google', holder.fake)).toEqual([]);
  });
});

describe('OpenRouter catalog', () => {
  const holder = useFake('openrouter');

  it('keeps text-output models that chat, with names, context lengths and prices per million tokens', async () => {
    const prices = { inputPrice: 2.5, outputPrice: 10 };
    expect(await probe('openrouter', holder.fake)).toEqual([
      { id: 'anthropic/claude-sonnet-4', name: 'Anthropic: Claude Sonnet 4', contextLength: 1_000_000, ...prices },
      { id: 'meta-llama/llama-3.3-70b-instruct:free', name: 'Meta: Llama 3.3 70B Instruct (free)', contextLength: 131_072, ...prices },
      { id: 'openai/gpt-4o', name: 'OpenAI: GPT-4o', contextLength: 128_000, ...prices },
      { id: 'openrouter/auto', name: 'Auto Router', contextLength: 2_000_000, ...prices },
    ]);
  });

  it('leaves a model unpriced when its prices are variable (-1) or missing', async () => {
    const [first, second] = holder.fake.models as Array<Record<string, unknown>>;
    first!.pricing = { prompt: '-1', completion: '-1' };
    delete second!.pricing;
    const models = await probe('openrouter', holder.fake);
    expect(models.find((model) => model.id === first!.id)).not.toHaveProperty('inputPrice');
    expect(models.find((model) => model.id === second!.id)).not.toHaveProperty('outputPrice');
  });

  it('proves the key on /key first, then lists /models without it', async () => {
    await probe('openrouter', holder.fake);
    expect(holder.fake.requests.map((request) => request.path)).toEqual(['/key', '/models']);
    expect(holder.fake.requests[0]?.headers.authorization).toBe(`Bearer ${holder.fake.apiKey}`);
    expect(holder.fake.requests[1]?.headers.authorization).toBeUndefined();
  });

  it('does not list models for a key that /key refuses, though the list is public', async () => {
    await expect(probe('openrouter', holder.fake, 'sk-or-v1-wrong')).rejects.toMatchObject({ kind: 'rejected', status: 401 });
    expect(holder.fake.requests.map((request) => request.path)).toEqual(['/key']);
  });

  it('reads output modalities from the older modality string too', async () => {
    holder.fake.models = [
      { id: 'mistralai/codestral-2508', name: 'Mistral: Codestral 2508', context_length: 256_000, architecture: { modality: 'text->text' } },
      { id: 'black-forest-labs/flux-1.1-pro', name: 'FLUX 1.1 Pro', context_length: null, architecture: { modality: 'text->image' } },
    ];
    expect(await probe('openrouter', holder.fake)).toEqual([{ id: 'mistralai/codestral-2508', name: 'Mistral: Codestral 2508', contextLength: 256_000 }]);
  });
});

describe('custom OpenAI-compatible catalog', () => {
  const holder = useFake('custom');

  it('reads vLLM and LiteLLM context fields, drops embedding, rerank and speech models, lists a duplicate once', async () => {
    expect(await probe('custom', holder.fake)).toEqual([
      { id: 'deepseek-r1:14b', name: 'deepseek-r1:14b', contextLength: null },
      { id: 'llama3.1:8b-instruct-q4_K_M', name: 'llama3.1:8b-instruct-q4_K_M', contextLength: 131_072 },
      { id: 'Qwen/Qwen2.5-Coder-32B-Instruct', name: 'Qwen/Qwen2.5-Coder-32B-Instruct', contextLength: 32_768 },
    ]);
  });

  it('sends the key as a bearer token', async () => {
    await probe('custom', holder.fake);
    expect(holder.fake.requests).toHaveLength(1);
    expect(holder.fake.requests[0]).toMatchObject({ method: 'GET', path: '/models' });
    expect(holder.fake.requests[0]?.headers.authorization).toBe(`Bearer ${holder.fake.apiKey}`);
  });

  it('sends no authorization at all for an empty key (a local server without auth)', async () => {
    holder.fake.requireKey = false;
    expect(await probe('custom', holder.fake, '')).toHaveLength(3);
    expect(holder.fake.requests[0]?.headers.authorization).toBeUndefined();
  });
});
