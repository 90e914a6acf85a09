import { bigint, numeric, pgTable, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, updatedAt } from './columns.js';
import { oneOwner, ownerColumns } from './owner-columns.js';

/** One row per user or organization (each has its own allowance), created lazily; costs in USD. */
export const usage = pgTable(
  'usage',
  {
    ...ownerColumns(),
    inputCost: numeric('input_cost', { precision: 18, scale: 10, mode: 'number' }).notNull().default(0),
    outputCost: numeric('output_cost', { precision: 18, scale: 10, mode: 'number' }).notNull().default(0),
    inputTokens: bigint('input_tokens', { mode: 'number' }).notNull().default(0),
    cachedInputTokens: bigint('cached_input_tokens', { mode: 'number' }).notNull().default(0),
    outputTokens: bigint('output_tokens', { mode: 'number' }).notNull().default(0),
    reasoningTokens: bigint('reasoning_tokens', { mode: 'number' }).notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  // Unique, not a primary key: one of the two is null. Each is an upsert's conflict target.
  (table) => [uniqueIndex('usage_user_id_key').on(table.userId), uniqueIndex('usage_org_id_key').on(table.orgId), oneOwner('usage', table)],
);

export type Usage = typeof usage.$inferSelect;
