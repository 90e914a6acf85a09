import { z } from 'zod';
import { isWellFormedKey } from '../../ai/catalog/provider-catalog.js';
import { PROVIDER_NAMES } from '../../domain/providers.js';
import { changesSomething, isoTimestamp } from '../common-schemas.js';

export { PROVIDER_NAMES };
export const providerNameSchema = z.enum(PROVIDER_NAMES);

/** The mask a client shows for a stored key; sent back unchanged, it means "keep the key". */
export const KEY_MASK_CHARACTER = '\u2022';

const MASKED_KEY = new RegExp(`^${KEY_MASK_CHARACTER}+$`);
export const isMaskedKey = (key: string) => MASKED_KEY.test(key);

export const apiKeySchema = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(1024, 'must be at most 1024 characters')
  .refine((key) => isMaskedKey(key) || !key.includes(KEY_MASK_CHARACTER), {
    message: 'contains the mask character (•): send the key itself, or only mask characters to keep the stored one',
  })
  .refine((key) => isMaskedKey(key) || isWellFormedKey(key), { message: 'must be printable ASCII without spaces' });

const baseUrlSchema = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(2048).transform((url) => url.replace(/\/+$/, ''));

export const catalogModelSchema = z.object({
  id: z.string().min(1).max(256),
  name: z.string().max(256),
  contextLength: z.number().int().positive().nullable().optional(),
});

const customModelsSchema = z.union([
  z.boolean(),
  z.array(z.union([z.string().trim().min(1).max(256), catalogModelSchema.partial({ name: true })])).max(500),
]);

export const registerBody = z.object({
  apiKey: apiKeySchema,
  modelProviderName: providerNameSchema.default('custom'),
  customBaseUrl: baseUrlSchema.nullish(),
  customModels: customModelsSchema.optional(),
  enabled: z.boolean().optional(),
});

export const probeBody = z.object({
  modelProviderName: providerNameSchema,
  apiKey: apiKeySchema.refine((key) => !isMaskedKey(key), { message: 'send the key itself to probe it' }),
  customBaseUrl: baseUrlSchema.nullish(),
});

const patchFields = z
  .object({
    modelProviderName: providerNameSchema,
    customModels: z.boolean(),
    customBaseURL: baseUrlSchema.nullable(),
    enabled: z.boolean(),
    availableModels: z.array(catalogModelSchema).max(2000).nullable(),
  })
  .partial();

/** `PATCH /byok/providers/:providerId`: modelProviderName renames the provider. */
export const patchByIdBody = changesSomething(patchFields);

/** `PATCH /byok/providers`: modelProviderName only selects the provider, so something else must change. */
export const patchByNameBody = changesSomething(patchFields, ['customModels', 'customBaseURL', 'enabled', 'availableModels']);

export const providerParams = z.object({ providerId: z.string().min(1).max(64) });

const modelSchema = z.object({ id: z.string(), name: z.string(), contextLength: z.number().nullable() });

export const providerResponse = z.object({
  id: z.uuid(),
  modelProviderName: z.string(),
  customModels: z.boolean(),
  customBaseUrl: z.string().nullable(),
  enabled: z.boolean(),
  availableModels: z.array(modelSchema),
  createdAt: isoTimestamp,
});

export const registeredResponse = z.object({ message: z.string(), id: z.uuid(), models: z.array(modelSchema) });

const platformEntrySchema = z.object({
  id: z.literal('1'),
  modelProviderName: z.literal('platform'),
  customModels: z.literal(false),
  customBase: z.string().nullable(),
  availableModels: z.array(modelSchema),
});

export const probeResponse = z.object({ byokModels: z.array(z.union([modelSchema, platformEntrySchema])) });

export const modelListResponse = z.array(
  z.union([
    z.object({ id: z.uuid(), modelProviderName: z.string(), customModels: z.boolean(), customBase: z.string().nullable(), availableModels: z.array(modelSchema) }),
    platformEntrySchema,
  ]),
);

export const providerCardResponse = z.object({
  id: z.uuid(),
  modelProviderName: z.string(),
  enabled: z.boolean(),
  customBaseUrl: z.string().nullable(),
  modelCount: z.number().int(),
  createdAt: isoTimestamp,
  updatedAt: isoTimestamp,
});

export const patchedResponse = z.object({
  message: z.string(),
  provider: z.object({ id: z.uuid(), modelProviderName: z.string(), enabled: z.boolean(), updatedAt: isoTimestamp }),
});
