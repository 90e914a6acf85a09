import type { ProviderName } from '../../domain/providers.js';

export type { CatalogModel, ProviderName } from '../../domain/providers.js';

export interface CatalogRequest {
  provider: ProviderName;
  apiKey: string;
  /** Resolved by the caller (defaults or the user's custom URL), without a trailing slash. */
  baseUrl: string;
}

export interface CatalogOptions {
  /** Deadline for the whole probe, every page and the key check included. */
  timeoutMs?: number;
  /** For a user-supplied base URL: the endpoint policy's fetch, which checks each connection's address. */
  fetch?: typeof fetch;
}
