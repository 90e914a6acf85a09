import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import { createOpenRouter } from '@openrouter/ai-sdk-provider';
import type { AppConfig } from '../config/config.js';
import { AppError } from '../lib/app-error.js';
import type { ProviderName } from './catalog/provider-catalog.js';

export interface ModelEndpoint {
  provider: ProviderName | 'platform';
  baseUrl: string;
  apiKey: string;
  modelId: string;
  /** For endpoints a user supplied: a fetch that refuses forbidden addresses. */
  fetch?: typeof fetch;
}

/**
 * An AI SDK language model for one endpoint, through each provider's official package. OpenAI and
 * OpenAI-compatible endpoints use Chat Completions, which every gateway speaks; usage is asked for
 * in streams too, so streamed generations are metered like the others.
 */
export function createLanguageModel({ provider, baseUrl, apiKey, modelId, fetch }: ModelEndpoint): LanguageModelV3 {
  switch (provider) {
    case 'openai':
      return createOpenAI({ apiKey, baseURL: baseUrl, fetch }).chat(modelId);
    case 'anthropic':
      return createAnthropic({ apiKey, baseURL: baseUrl, fetch })(modelId);
    case 'google':
      return createGoogleGenerativeAI({ apiKey, baseURL: baseUrl, fetch })(modelId);
    case 'openrouter':
      return createOpenRouter({ apiKey, baseURL: baseUrl, fetch }).chat(modelId, { usage: { include: true } });
    case 'custom':
    case 'platform':
      return createOpenAICompatible({ name: provider, apiKey, baseURL: baseUrl, fetch, includeUsage: true }).chatModel(modelId);
  }
}

/** Where a provider's API is: the user's base URL when they set one, else the provider's default. */
export function providerBaseUrl(defaults: AppConfig['byokBaseUrls'], name: ProviderName, customBaseUrl: string | null): string {
  if (customBaseUrl !== null) return customBaseUrl;
  if (name === 'custom') throw new AppError('BAD_REQUEST', 'A custom provider needs a customBaseUrl');
  return defaults[name];
}
