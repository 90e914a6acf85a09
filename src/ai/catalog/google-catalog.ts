import { z } from 'zod';
import type { CatalogModel } from './catalog-types.js';
import { nameOrId, optionalTokenLimit } from './catalog-fields.js';
import { getJson, type Probe } from './catalog-http.js';
import { collectPages } from './catalog-pagination.js';
import { isChatModelId } from './non-chat-models.js';

const PAGE_SIZE = '1000'; // the API's maximum

const googlePageSchema = z.object({
  // Proto3 JSON leaves out empty lists: a key with no models gets `{}`.
  models: z
    .array(
      z.object({
        name: z.string().min(1),
        displayName: z.string().optional(),
        inputTokenLimit: optionalTokenLimit,
        supportedGenerationMethods: z.array(z.string()).default([]),
      }),
    )
    .default([]),
  nextPageToken: z.string().optional(),
});

const googleErrorSchema = z.object({
  // Details mix ErrorInfo (with a reason) and LocalizedMessage (without): the reason is optional.
  error: z.object({ details: z.array(z.looseObject({ reason: z.string().optional() })).optional() }),
});

/**
 * Google refuses a wrong or expired key with 400 INVALID_ARGUMENT, reason API_KEY_INVALID (a
 * missing key is a 403), so a 400 alone is not enough to blame the key.
 */
export function googleRejectsKey(status: number, body: unknown): boolean {
  const parsed = googleErrorSchema.safeParse(body);
  return status === 400 && parsed.success && (parsed.data.error.details ?? []).some((detail) => detail.reason === 'API_KEY_INVALID');
}

/**
 * Gemini API's list keeps embedding, AQA, Imagen and Veo models too; those lack `generateContent`.
 * TTS, image-output and native-audio Gemini variants do support it, so the shared id rule follows.
 */
export const isGoogleChatModel = (id: string, methods: readonly string[]) => methods.includes('generateContent') && isChatModelId(id);

/** `GET /models` with `x-goog-api-key`, paged by `pageToken`. The key stays out of the URL, which gets logged. */
export async function listGoogleModels(probe: Probe): Promise<CatalogModel[]> {
  const items = await collectPages(probe, async (pageToken) => {
    const page = await getJson(probe, {
      path: '/models',
      query: pageToken === undefined ? { pageSize: PAGE_SIZE } : { pageSize: PAGE_SIZE, pageToken },
      headers: { 'x-goog-api-key': probe.apiKey },
      schema: googlePageSchema,
      rejectsKey: googleRejectsKey,
    });
    return { items: page.models, next: page.nextPageToken === undefined || page.nextPageToken === '' ? undefined : page.nextPageToken };
  });
  return items
    .map((model) => ({ ...model, id: model.name.replace(/^models\//, '') }))
    .filter((model) => isGoogleChatModel(model.id, model.supportedGenerationMethods))
    .map((model) => ({ id: model.id, name: nameOrId(model.displayName, model.id), contextLength: model.inputTokenLimit ?? null }));
}
