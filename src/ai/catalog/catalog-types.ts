export type ProviderName = 'openai' | 'anthropic' | 'google' | 'openrouter' | 'custom';

/** One model a key can use, the same shape whichever provider listed it. */
export interface CatalogModel {
  id: string;
  /** The provider's display name, or the id when the provider has none. */
  name: string;
  /** Input tokens the model accepts, when the provider says; null when it does not. */
  contextLength: number | null;
  /** USD per million input and output tokens, when the provider's list says (OpenRouter). */
  inputPrice?: number;
  outputPrice?: number;
}

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
