import { z } from 'zod';
import type { CatalogModel } from './catalog-types.js';
import { nameOrId, optionalTokenLimit, tokenLimitOrNull } from './catalog-fields.js';
import { getJson, type Probe } from './catalog-http.js';
import { isChatModelId } from './non-chat-models.js';

const keySchema = z.object({ data: z.looseObject({}) });

const perTokenPrice = z.coerce.number().nonnegative().finite();

// 12 significant digits: 0.0000025 × 10⁶ is 2.5, not 2.4999999999999996.
const perMillion = (perToken: number) => Number((perToken * 1_000_000).toPrecision(12));

const modelsSchema = z.object({
  data: z.array(
    z.object({
      id: z.string().min(1),
      name: z.string().optional(),
      context_length: optionalTokenLimit,
      architecture: z
        .object({
          modality: z.string().nullish(),
          output_modalities: z.array(z.string()).nullish(),
        })
        .nullish(),
      top_provider: z.object({ context_length: optionalTokenLimit }).nullish(),
      // USD per token, as decimal strings; a missing or odd price leaves the model unpriced.
      pricing: z.object({ prompt: perTokenPrice, completion: perTokenPrice }).nullish().catch(null),
    }),
  ),
});

type OpenRouterModel = z.output<typeof modelsSchema>['data'][number];

// Models that answer in text but are made to produce these (image and audio generators).
const GENERATED_MEDIA = ['image', 'audio', 'video', 'speech'];

/** Output modalities, from the list when present, else from the older `input->output` string. */
function outputModalities(model: OpenRouterModel): string[] | undefined {
  const architecture = model.architecture;
  if (architecture?.output_modalities) return architecture.output_modalities;
  const outputs = architecture?.modality?.split('->')[1];
  return outputs === undefined ? undefined : outputs.split('+');
}

/** Text out and no generated media, then the shared id rule. A model without modalities is assumed to be text. */
export function isOpenRouterChatModel(model: OpenRouterModel): boolean {
  const outputs = outputModalities(model);
  const textOnly = outputs === undefined || (outputs.includes('text') && !outputs.some((output) => GENERATED_MEDIA.includes(output)));
  return textOnly && isChatModelId(model.id);
}

/**
 * OpenRouter's `/models` answers anyone, so the key is proved first with `GET /key` (401 when it
 * is wrong). The model list is then fetched without it: it does not need the key.
 */
export async function listOpenRouterModels(probe: Probe): Promise<CatalogModel[]> {
  await getJson(probe, { path: '/key', headers: { authorization: `Bearer ${probe.apiKey}` }, schema: keySchema });
  const body = await getJson(probe, { path: '/models', schema: modelsSchema });
  return body.data.filter(isOpenRouterChatModel).map((model) => ({
    id: model.id,
    name: nameOrId(model.name, model.id),
    contextLength: tokenLimitOrNull(model.context_length, model.top_provider?.context_length),
    ...(model.pricing ? { inputPrice: perMillion(model.pricing.prompt), outputPrice: perMillion(model.pricing.completion) } : {}),
  }));
}
