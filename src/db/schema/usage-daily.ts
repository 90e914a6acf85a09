import { bigint, date, integer, numeric, pgTable, unique, uuid, varchar } from 'drizzle-orm/pg-core';
import { oneOwner, ownerColumns } from './owner-columns.js';
import type { UsageKind } from './usage-records.js';

/**
 * The records summed per user, UTC day and what a chart groups by, kept in the same statement as
 * each record: a year of history is a few thousand rows to add up, whatever the number of calls.
 */
export const usageDaily = pgTable(
  'usage_daily',
  {
    ...ownerColumns(),
    /** As on the records: an organization's days are also summed per member (`groupBy=member`). */
    memberId: uuid('member_id'),
    day: date('day', { mode: 'string' }).notNull(),
    kind: varchar('kind', { length: 16 }).$type<UsageKind>().notNull(),
    modelId: varchar('model_id', { length: 256 }).notNull(),
    source: varchar('source', { length: 32 }).notNull(),
    repositoryName: varchar('repository_name', { length: 256 }),
    generations: integer('generations').notNull(),
    inputTokens: bigint('input_tokens', { mode: 'number' }).notNull(),
    outputTokens: bigint('output_tokens', { mode: 'number' }).notNull(),
    costUsd: numeric('cost_usd', { precision: 18, scale: 10, mode: 'number' }).notNull(),
  },
  // The owner and the day lead: a history reads one owner's range of days (the other owner column
  // is null, which the index finds as well).
  (table) => [
    unique('usage_daily_key')
      .on(table.userId, table.orgId, table.day, table.kind, table.modelId, table.source, table.repositoryName, table.memberId)
      .nullsNotDistinct(),
    oneOwner('usage_daily', table),
  ],
);
