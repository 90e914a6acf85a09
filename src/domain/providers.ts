/** The AI providers a key (platform or BYOK) can belong to; `custom` is any OpenAI-compatible server. */
export const PROVIDER_NAMES = ['openai', 'anthropic', 'google', 'openrouter', 'custom'] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

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
