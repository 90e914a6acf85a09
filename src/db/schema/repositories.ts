import { bigint, boolean, pgTable, text, uniqueIndex, uuid, varchar } from 'drizzle-orm/pg-core';
import { createdAt, primaryUuid, updatedAt } from './columns.js';
import { users } from './users.js';

/** A repository a user's pull requests came from, linked when its first webhook arrives. */
export const repositories = pgTable(
  'repositories',
  {
    id: primaryUuid(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    repositoryId: bigint('repository_id', { mode: 'number' }).notNull(),
    fullName: varchar('full_name', { length: 256 }).notNull(),
    htmlUrl: text('html_url'),
    private: boolean('private').notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [uniqueIndex('repositories_user_repository_key').on(table.userId, table.repositoryId)],
);

export type Repository = typeof repositories.$inferSelect;
