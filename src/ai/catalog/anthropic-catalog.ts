import { z } from 'zod';
import type { CatalogModel } from './catalog-types.js';
import { nameOrId, optionalTokenLimit, tokenLimitOrNull } from './catalog-fields.js';
import { getJson, type Probe } from './catalog-http.js';
import { collectPages } from './catalog-pagination.js';
import { isChatModelId } from './non-chat-models.js';

export const ANTHROPIC_VERSION = '2023-06-01';
const PAGE_LIMIT = '1000'; // the API's maximum

const anthropicPageSchema = z.object({
  data: z.array(
    z.object({
      id: z.string().min(1),
      display_name: z.string().optional(),
      max_input_tokens: optionalTokenLimit,
    }),
  ),
  has_more: z.boolean(),
  last_id: z.string().nullable(),
});

/**
 * `GET /models` with `x-api-key` and `anthropic-version`, paged by `after_id`. Every model Anthropic
 * lists is a Claude chat model; the shared non-chat rule is applied anyway, for the day one is not.
 */
export async function listAnthropicModels(probe: Probe): Promise<CatalogModel[]> {
  const items = await collectPages(probe, async (afterId) => {
    const page = await getJson(probe, {
      path: '/models',
      query: afterId === undefined ? { limit: PAGE_LIMIT } : { limit: PAGE_LIMIT, after_id: afterId },
      headers: { 'x-api-key': probe.apiKey, 'anthropic-version': ANTHROPIC_VERSION },
      schema: anthropicPageSchema,
    });
    // has_more with no last_id has no next page to ask for; stopping beats inventing a cursor.
    return { items: page.data, next: page.has_more && page.last_id !== null ? page.last_id : undefined };
  });
  return items
    .filter((model) => isChatModelId(model.id))
    .map((model) => ({ id: model.id, name: nameOrId(model.display_name, model.id), contextLength: tokenLimitOrNull(model.max_input_tokens) }));
}
