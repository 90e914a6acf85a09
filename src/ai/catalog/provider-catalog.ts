import { listAnthropicModels } from './anthropic-catalog.js';
import { CatalogError } from './catalog-error.js';
import type { Probe } from './catalog-http.js';
import type { CatalogModel, CatalogOptions, CatalogRequest, ProviderName } from './catalog-types.js';
import { listGoogleModels } from './google-catalog.js';
import { listCustomModels, listOpenAiModels } from './openai-catalog.js';
import { listOpenRouterModels } from './openrouter-catalog.js';

export { CatalogError, type CatalogErrorKind } from './catalog-error.js';
export type { CatalogModel, CatalogOptions, CatalogRequest, ProviderName } from './catalog-types.js';

export const DEFAULT_CATALOG_TIMEOUT_MS = 10_000;

const LISTERS: Record<ProviderName, (probe: Probe) => Promise<CatalogModel[]>> = {
  openai: listOpenAiModels,
  anthropic: listAnthropicModels,
  google: listGoogleModels,
  openrouter: listOpenRouterModels,
  custom: listCustomModels,
};

const LABELS: Record<Exclude<ProviderName, 'custom'>, string> = { openai: 'OpenAI', anthropic: 'Anthropic', google: 'Google', openrouter: 'OpenRouter' };

/**
 * What a header can carry and a real key is made of. Anything else (a pasted newline, curly quotes)
 * would make fetch throw an error that quotes the header, key included.
 */
export const isWellFormedKey = (key: string) => /^[\x21-\x7e]+$/.test(key);

/**
 * Lists the chat models a key can use, with the provider's own list endpoint and auth scheme:
 * non-chat models dropped, one entry per id, sorted by id (numbers in ids compare as numbers).
 * Throws CatalogError: `rejected` (401/403, or Google's invalid-key 400), `unreachable` (no
 * connection, or no full answer within `timeoutMs` for the whole probe), `bad-response` (anything else).
 */
export async function fetchCatalog(request: CatalogRequest, options: CatalogOptions = {}): Promise<CatalogModel[]> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_CATALOG_TIMEOUT_MS;
  const label = request.provider === 'custom' ? customLabel(request.baseUrl) : LABELS[request.provider];
  checkKey(request, label);
  const probe: Probe = { baseUrl: request.baseUrl, apiKey: request.apiKey, label, signal: AbortSignal.timeout(timeoutMs), timeoutMs, fetch: options.fetch ?? fetch };
  return normalizeCatalog(await LISTERS[request.provider](probe));
}

function checkKey(request: CatalogRequest, label: string) {
  // A local OpenAI-compatible server (Ollama) may need no key at all.
  if (request.apiKey === '' && request.provider === 'custom') return;
  const provider = label.replace(/^The /, 'the ');
  if (request.apiKey === '') throw new CatalogError('rejected', `No API key was given for ${provider}`);
  if (!isWellFormedKey(request.apiKey)) {
    throw new CatalogError('rejected', `The API key for ${provider} contains spaces, line breaks or other characters no API key has`);
  }
}

const idOrder = new Intl.Collator('en', { numeric: true });

/** One entry per id (the first listed wins) in a stable order: `gpt-4.1` before `gpt-10`, whatever the page order. */
export function normalizeCatalog(models: readonly CatalogModel[]): CatalogModel[] {
  const byId = new Map<string, CatalogModel>();
  for (const model of models) if (!byId.has(model.id)) byId.set(model.id, model);
  return [...byId.values()].sort((a, b) => idOrder.compare(a.id, b.id) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** Named by scheme, host and port only: a base URL could carry credentials in its user info. */
const customLabel = (baseUrl: string) => (URL.canParse(baseUrl) ? `The model server at ${new URL(baseUrl).origin}` : 'The model server');
