import { index, pgTable, uuid, varchar } from 'drizzle-orm/pg-core';
import { createdAt, primaryUuid, timestampMs } from './columns.js';
import { users } from './users.js';

/** Personal API tokens (decisions.md §17). A revoked token is a deleted row. */
export const apiTokens = pgTable(
  'api_tokens',
  {
    id: primaryUuid(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: varchar('name', { length: 100 }).notNull(),
    /** SHA-256 hex of the whole token: a leaked table holds no usable token. */
    tokenHash: varchar('token_hash', { length: 64 }).notNull().unique(),
    /** The token's first 8 characters, shown so a person can tell their tokens apart. */
    prefix: varchar('prefix', { length: 8 }).notNull(),
    createdAt: createdAt(),
    expiresAt: timestampMs('expires_at').notNull(),
    lastUsedAt: timestampMs('last_used_at'),
  },
  (table) => [index('api_tokens_user_id_idx').on(table.userId, table.expiresAt)],
);

export type ApiToken = typeof apiTokens.$inferSelect;
