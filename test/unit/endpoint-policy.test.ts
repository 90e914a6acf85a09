import type { LookupAddress } from 'node:dns';
import { generateText } from 'ai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EndpointPolicy, type Resolver } from '../../src/lib/endpoint-policy.js';
import { CatalogError, fetchCatalog } from '../../src/ai/catalog/provider-catalog.js';
import { createLanguageModel } from '../../src/ai/language-models.js';
import { FakeAiProvider } from '../fakes/fake-ai-providers.js';

const PUBLIC: LookupAddress = { address: '93.184.215.14', family: 4 };
const LOOPBACK: LookupAddress = { address: '127.0.0.1', family: 4 };

/** A DNS server that changes its answer: the first lookup public, every later one `then`. */
function rebindingResolver(then: LookupAddress) {
  const seen: string[] = [];
  const resolve: Resolver = (hostname, _options, callback) => {
    seen.push(hostname);
    setImmediate(() => callback(null, [seen.length === 1 ? PUBLIC : then]));
  };
  return { resolve, seen };
}

describe('custom base URLs: the address policy applies to the address connected', () => {
  let fake: FakeAiProvider;
  beforeAll(async () => {
    fake = await FakeAiProvider.start('openai');
  });
  afterAll(() => fake.stop());
  beforeEach(() => fake.reset());

  /** The fake's URL under a hostname only the test's resolver knows. */
  const rebound = () => fake.url.replace('127.0.0.1', 'rebind.test');

  it('a name that passed the check and then resolves to a private address is refused at connection (BYOK_ALLOW_PRIVATE_NETWORKS=false)', async () => {
    const dns = rebindingResolver(LOOPBACK);
    const policy = new EndpointPolicy(false, dns.resolve);
    // The fetch checks the URL first (the public answer), then connects (the private one).
    const error = await fetchCatalog({ provider: 'custom', apiKey: fake.apiKey, baseUrl: rebound() }, { fetch: policy.fetch }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(CatalogError);
    expect((error as CatalogError).message).toContain('EBLOCKEDADDRESS');
    expect(fake.requests).toHaveLength(0);
    expect(dns.seen.length).toBeGreaterThanOrEqual(2);
  });

  it('the AI SDK provider with the policy’s fetch is refused the same way, and nothing reaches the endpoint', async () => {
    const dns = rebindingResolver(LOOPBACK);
    const policy = new EndpointPolicy(false, dns.resolve);
    const model = createLanguageModel({ provider: 'custom', baseUrl: rebound(), apiKey: fake.apiKey, modelId: 'gpt-4o-mini', fetch: policy.fetch });
    await expect(generateText({ model, prompt: 'hi', maxRetries: 0 })).rejects.toThrow();
    expect(fake.requests).toHaveLength(0);
  });

  it('connects to the address the policy resolved and checked (private networks allowed)', async () => {
    const dns = rebindingResolver(LOOPBACK);
    const policy = new EndpointPolicy(true, dns.resolve);
    const models = await fetchCatalog({ provider: 'custom', apiKey: fake.apiKey, baseUrl: rebound() }, { fetch: policy.fetch });
    expect(models.length).toBeGreaterThan(0);
    expect(fake.requests.length).toBeGreaterThan(0);
    expect(dns.seen.every((hostname) => hostname === 'rebind.test')).toBe(true);
  });

  it('refuses a link-local address literal before any connection, whatever the setting', async () => {
    const policy = new EndpointPolicy(true, rebindingResolver(LOOPBACK).resolve);
    await expect(policy.fetch('http://169.254.169.254/latest/meta-data')).rejects.toThrow(/does not call/);
    await expect(policy.request('http://169.254.169.254/latest/meta-data', { method: 'GET', headers: {} })).rejects.toThrow(/does not call/);
  });

  it('its request (the GitLab client\'s) is refused at connection the same way as its fetch', async () => {
    const dns = rebindingResolver(LOOPBACK);
    const policy = new EndpointPolicy(false, dns.resolve);
    await expect(policy.request(`${rebound()}/models`, { method: 'GET', headers: {} })).rejects.toMatchObject({ code: 'EBLOCKEDADDRESS' });
    expect(fake.requests).toHaveLength(0);
  });
});
