import type { CatalogModel } from '../../domain/providers.js';
import { boolean, jsonb, pgTable, text, uniqueIndex, varchar } from 'drizzle-orm/pg-core';
import { createdAt, primaryUuid, updatedAt } from './columns.js';
import { oneOwner, ownerColumns } from './owner-columns.js';

export type { CatalogModel };

export const byokProviders = pgTable(
  'byok_providers',
  {
    id: primaryUuid(),
    ...ownerColumns(),
    modelProviderName: varchar('model_provider_name', { length: 32 }).notNull().default('custom'),
    /** AES-256-GCM ciphertext; never returned, never logged. */
    apiKey: text('api_key').notNull(),
    customModels: boolean('custom_models').notNull().default(false),
    customBaseUrl: text('custom_base_url'),
    enabled: boolean('enabled').notNull().default(true),
    availableModels: jsonb('available_models').$type<CatalogModel[]>(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  // A second registration of the same provider updates the first in place.
  (table) => [
    uniqueIndex('byok_providers_user_provider_key').on(table.userId, table.modelProviderName),
    uniqueIndex('byok_providers_org_provider_key').on(table.orgId, table.modelProviderName),
    oneOwner('byok_providers', table),
  ],
);

export type ByokProvider = typeof byokProviders.$inferSelect;
