import type { CatalogModel } from '../../domain/providers.js';
import { boolean, jsonb, pgTable, text, uniqueIndex, uuid, varchar } from 'drizzle-orm/pg-core';
import { createdAt, primaryUuid, updatedAt } from './columns.js';
import { users } from './users.js';

export type { CatalogModel };

export const byokProviders = pgTable(
  'byok_providers',
  {
    id: primaryUuid(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
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
  (table) => [uniqueIndex('byok_providers_user_provider_key').on(table.userId, table.modelProviderName)],
);

export type ByokProvider = typeof byokProviders.$inferSelect;
