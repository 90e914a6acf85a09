import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { CatalogError, fetchCatalog, type CatalogRequest } from '../../src/ai/catalog/provider-catalog.js';
import { FakeAiProvider, fakeApiKey, type FakeProviderFlavor } from '../fakes/fake-ai-providers.js';
import { useFake } from '../helpers/fake-providers.js';
import { freePort } from '../helpers/net.js';

/**
 * Runs a probe that must fail and returns its CatalogError, after checking that the key sent, and
 * its last characters (what providers echo back masked), appear nowhere in what was thrown.
 */
async function probeError(request: CatalogRequest, timeoutMs?: number): Promise<CatalogError> {
  const error = await fetchCatalog(request, { timeoutMs }).then(
    () => expect.fail('the probe should have failed'),
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(CatalogError);
  const thrown = error as CatalogError;
  const everything = [thrown.message, thrown.stack ?? '', String(thrown), inspect(thrown, { depth: 5 }), JSON.stringify({ ...thrown })].join('\n');
  if (request.apiKey.trim() !== '') {
    expect(everything).not.toContain(request.apiKey.trim());
    expect(everything).not.toContain(request.apiKey.trim().slice(-6));
  }
  return thrown;
}

const FLAVORS: FakeProviderFlavor[] = ['openai', 'anthropic', 'google', 'openrouter', 'custom'];

// How each provider refuses a wrong key: Google with a 400 (API_KEY_INVALID), the others with a 401.
const WRONG_KEY_STATUS: Record<FakeProviderFlavor, number> = { openai: 401, anthropic: 401, google: 400, openrouter: 401, custom: 401 };

const LABELS: Record<FakeProviderFlavor, (fake: FakeAiProvider) => string> = {
  openai: () => 'OpenAI',
  anthropic: () => 'Anthropic',
  google: () => 'Google',
  openrouter: () => 'OpenRouter',
  custom: (fake) => `The model server at ${new URL(fake.url).origin}`,
};

describe.each(FLAVORS)('%s failures', (flavor) => {
  const provider = useFake(flavor);
  const request = (apiKey = provider.fake.apiKey): CatalogRequest => ({ provider: flavor, apiKey, baseUrl: provider.fake.url });

  it('reports a wrong key as rejected, saying so', async () => {
    const error = await probeError(request(fakeApiKey(flavor)));
    expect(error).toMatchObject({ kind: 'rejected', status: WRONG_KEY_STATUS[flavor] });
    // Exact: nothing of the provider's body (OpenAI quotes the key back, partly masked) gets through.
    expect(error.message).toBe(`${LABELS[flavor](provider.fake)} rejected the API key (HTTP ${WRONG_KEY_STATUS[flavor]})`);
  });

  it.each([401, 403])('reports HTTP %i as rejected', async (status) => {
    provider.fake.fault = { kind: 'status', status };
    expect(await probeError(request())).toMatchObject({ kind: 'rejected', status });
  });

  it('reports HTTP 500 as a bad response', async () => {
    provider.fake.fault = { kind: 'status', status: 500, path: '/models' };
    const error = await probeError(request());
    expect(error).toMatchObject({ kind: 'bad-response', status: 500 });
    expect(error.message).toContain('HTTP 500');
  });

  it('reports a body that is not JSON as a bad response', async () => {
    provider.fake.fault = { kind: 'garbage', path: '/models' };
    const error = await probeError(request());
    expect(error.kind).toBe('bad-response');
    expect(error.message).toMatch(/other than JSON/);
  });

  it('reports JSON of another shape as a bad response', async () => {
    provider.fake.fault = { kind: 'wrong-shape', path: '/models' };
    const error = await probeError(request());
    expect(error.kind).toBe('bad-response');
    expect(error.message).toMatch(/unexpected shape \((data|models): /);
  });

  it('gives up after timeoutMs as unreachable', async () => {
    provider.fake.fault = { kind: 'delay', ms: 5_000 };
    const started = performance.now();
    const error = await probeError(request(), 100);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(error.kind).toBe('unreachable');
    expect(error.message).toContain('within 100 ms');
  });
});

describe('failures common to all providers', () => {
  const anthropic = useFake('anthropic');
  const google = useFake('google');
  const custom = useFake('custom');

  it('reports a refused connection as unreachable', async () => {
    const port = await freePort();
    const error = await probeError({ provider: 'openai', apiKey: fakeApiKey('openai'), baseUrl: `http://127.0.0.1:${port}/v1` });
    expect(error.kind).toBe('unreachable');
    expect(error.message).toBe('OpenAI could not be reached (ECONNREFUSED)');
  });

  it('applies the deadline to the whole probe, not to each page', async () => {
    // Three pages of 80 ms each: every request alone fits in 200 ms, all of them do not.
    anthropic.fake.pageSize = 2;
    anthropic.fake.fault = { kind: 'delay', ms: 80 };
    const error = await probeError({ provider: 'anthropic', apiKey: anthropic.fake.apiKey, baseUrl: anthropic.fake.url }, 200);
    expect(error.kind).toBe('unreachable');
    expect(anthropic.fake.requests.length).toBeGreaterThanOrEqual(2);
  });

  it('blames the key for a Google 400 only when Google says API_KEY_INVALID', async () => {
    google.fake.fault = { kind: 'status', status: 400 };
    expect(await probeError({ provider: 'google', apiKey: google.fake.apiKey, baseUrl: google.fake.url })).toMatchObject({ kind: 'bad-response', status: 400 });
  });

  it('reports a redirect instead of following it with the key', async () => {
    anthropic.fake.fault = { kind: 'redirect', location: `${custom.fake.url}/models` };
    const error = await probeError({ provider: 'anthropic', apiKey: anthropic.fake.apiKey, baseUrl: anthropic.fake.url });
    expect(error).toMatchObject({ kind: 'bad-response', status: 302 });
    expect(custom.fake.requests).toHaveLength(0);
  });

  it('says when a base URL has no model list (a custom URL missing /v1)', async () => {
    const error = await probeError({ provider: 'custom', apiKey: custom.fake.apiKey, baseUrl: new URL(custom.fake.url).origin });
    expect(error).toMatchObject({ kind: 'bad-response', status: 404 });
    expect(error.message).toBe(`The model server at ${new URL(custom.fake.url).origin} has no /models under this base URL (HTTP 404)`);
  });

  it('reports a page cursor that does not move instead of looping until the deadline', async () => {
    anthropic.fake.pageSize = 2;
    const [first, second, third] = anthropic.fake.models;
    // A gateway that lists one model twice hands out the same cursor twice.
    anthropic.fake.models = [first!, second!, third!, second!, first!];
    const error = await probeError({ provider: 'anthropic', apiKey: anthropic.fake.apiKey, baseUrl: anthropic.fake.url });
    expect(error.kind).toBe('bad-response');
    expect(error.message).toMatch(/repeated a page cursor/);
  });

  it('reports a base URL that is not a URL as unreachable', async () => {
    expect(await probeError({ provider: 'custom', apiKey: custom.fake.apiKey, baseUrl: 'http//localhost:11434/v1' })).toMatchObject({
      kind: 'unreachable',
      message: 'The model server has no valid base URL',
    });
  });

  it('refuses an empty key without asking the provider', async () => {
    expect(await probeError({ provider: 'anthropic', apiKey: '', baseUrl: anthropic.fake.url })).toMatchObject({ kind: 'rejected' });
    expect(anthropic.fake.requests).toHaveLength(0);
  });

  it('refuses a key with a line break without asking, and without quoting it', async () => {
    // fetch itself would throw `Headers.append: "<the key>" is an invalid header value`.
    const apiKey = `${fakeApiKey('custom')}\nx-injected: 1`;
    const error = await probeError({ provider: 'custom', apiKey, baseUrl: custom.fake.url });
    expect(error.kind).toBe('rejected');
    expect(error.message).toBe(`The API key for the model server at ${new URL(custom.fake.url).origin} contains spaces, line breaks or other characters no API key has`);
    expect(custom.fake.requests).toHaveLength(0);
  });
});

describe('fake providers refuse a request without a key as the real ones do', () => {
  it.each([
    ['openai', 401, { error: { type: 'invalid_request_error', code: null } }],
    ['anthropic', 401, { type: 'error', error: { type: 'authentication_error', message: 'x-api-key header is required' } }],
    ['google', 403, { error: { code: 403, status: 'PERMISSION_DENIED' } }],
    ['openrouter', 401, { error: { message: 'No auth credentials found', code: 401 } }],
    ['custom', 401, { error: 'Unauthorized' }],
  ] as const)('%s: HTTP %i', async (flavor, status, body) => {
    const fake = await FakeAiProvider.start(flavor);
    try {
      const response = await fetch(`${fake.url}/${flavor === 'openrouter' ? 'key' : 'models'}`);
      expect(response.status).toBe(status);
      expect(await response.json()).toMatchObject(body);
    } finally {
      await fake.stop();
    }
  });
});
