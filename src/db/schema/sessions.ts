import { index, jsonb, pgTable, uuid, varchar } from 'drizzle-orm/pg-core';
import { createdAt, timestampMs } from './columns.js';
import { users } from './users.js';
import type { SessionUserAgent } from '../../domain/sessions.js';

export type { SessionUserAgent } from '../../domain/sessions.js';

export const sessions = pgTable(
  'sessions',
  {
    /** SHA-256 hex of the cookie token: a leaked table holds no usable session. */
    id: varchar('id', { length: 64 }).primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    expiresAt: timestampMs('expires_at'),
    userAgent: jsonb('user_agent').$type<SessionUserAgent>(),
    createdAt: createdAt(),
  },
  (table) => [index('sessions_user_id_idx').on(table.userId, table.createdAt)],
);

export type Session = typeof sessions.$inferSelect;
