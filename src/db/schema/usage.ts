import { bigint, numeric, pgTable, uuid } from 'drizzle-orm/pg-core';
import { createdAt, updatedAt } from './columns.js';
import { users } from './users.js';

/** One row per user, created lazily; costs in USD. */
export const usage = pgTable('usage', {
  userId: uuid('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  inputCost: numeric('input_cost', { precision: 18, scale: 10, mode: 'number' }).notNull().default(0),
  outputCost: numeric('output_cost', { precision: 18, scale: 10, mode: 'number' }).notNull().default(0),
  inputTokens: bigint('input_tokens', { mode: 'number' }).notNull().default(0),
  cachedInputTokens: bigint('cached_input_tokens', { mode: 'number' }).notNull().default(0),
  outputTokens: bigint('output_tokens', { mode: 'number' }).notNull().default(0),
  reasoningTokens: bigint('reasoning_tokens', { mode: 'number' }).notNull().default(0),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export type Usage = typeof usage.$inferSelect;
