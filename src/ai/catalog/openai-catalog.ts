import { z } from 'zod';
import type { CatalogModel } from './catalog-types.js';
import { optionalTokenLimit, tokenLimitOrNull } from './catalog-fields.js';
import { getJson, type Probe } from './catalog-http.js';
import { isChatModelId } from './non-chat-models.js';

const openAiListSchema = z.object({
  data: z.array(z.object({ id: z.string().min(1) })),
});

// The instruct variant of gpt-3.5 is served by the legacy completions endpoint only.
const LEGACY_COMPLETION_ONLY = /^(?:ft:)?gpt-3\.5-turbo-instruct/;

/** OpenAI's list: chat models minus the shared non-chat families and the completion-only instruct. */
export const isOpenAiChatModel = (id: string) => isChatModelId(id) && !LEGACY_COMPLETION_ONLY.test(id.toLowerCase());

/** `GET /models` with a bearer key. The API tells nothing about context windows. */
export async function listOpenAiModels(probe: Probe): Promise<CatalogModel[]> {
  const body = await getJson(probe, { path: '/models', headers: { authorization: `Bearer ${probe.apiKey}` }, schema: openAiListSchema });
  return body.data.filter((model) => isOpenAiChatModel(model.id)).map((model) => ({ id: model.id, name: model.id, contextLength: null }));
}

const customListSchema = z.object({
  data: z.array(
    z.object({
      id: z.string().min(1),
      // Each gateway names the window its own way: LiteLLM/OpenRouter-style `context_length`, vLLM
      // `max_model_len`, Mistral `max_context_length`, Groq `context_window`. Ollama sends none.
      context_length: optionalTokenLimit,
      max_model_len: optionalTokenLimit,
      max_context_length: optionalTokenLimit,
      context_window: optionalTokenLimit,
    }),
  ),
});

/**
 * Any OpenAI-compatible server (Ollama, vLLM, LiteLLM, …): OpenAI's format and auth. The ids are
 * arbitrary, so only the shared non-chat families are dropped (`-instruct` is a chat tune here).
 * A local server may need no key: an empty one sends no `authorization` at all.
 */
export async function listCustomModels(probe: Probe): Promise<CatalogModel[]> {
  const headers: Record<string, string> = probe.apiKey === '' ? {} : { authorization: `Bearer ${probe.apiKey}` };
  const body = await getJson(probe, { path: '/models', headers, schema: customListSchema });
  return body.data
    .filter((model) => isChatModelId(model.id))
    .map((model) => ({
      id: model.id,
      name: model.id,
      contextLength: tokenLimitOrNull(model.context_length, model.max_model_len, model.max_context_length, model.context_window),
    }));
}
