import { bigint, index, integer, numeric, pgTable, uuid, varchar } from 'drizzle-orm/pg-core';
import { timestampMs } from './columns.js';
import { oneOwner, ownerColumns } from './owner-columns.js';

export const USAGE_KINDS = ['review', 'verification', 'chat', 'command'] as const;
export type UsageKind = (typeof USAGE_KINDS)[number];

/**
 * One row per model call (decisions.md §14), written in the transaction that charges the
 * allowance. The pull request is referenced by id without a foreign key: the history outlives it.
 */
export const usageRecords = pgTable(
  'usage_records',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    at: timestampMs('at').notNull().defaultNow(),
    ...ownerColumns(),
    /**
     * In an organization's records, the member who triggered the call (decisions.md §15), null when
     * none did. No foreign key: the organization's history outlives a member's account.
     */
    memberId: uuid('member_id'),
    kind: varchar('kind', { length: 16 }).$type<UsageKind>().notNull(),
    modelId: varchar('model_id', { length: 256 }).notNull(),
    /** `platform`, or the provider's name for a BYOK call. */
    source: varchar('source', { length: 32 }).notNull(),
    inputTokens: integer('input_tokens').notNull(),
    outputTokens: integer('output_tokens').notNull(),
    costUsd: numeric('cost_usd', { precision: 18, scale: 10, mode: 'number' }).notNull(),
    pullRequestId: uuid('pull_request_id'),
    repositoryName: varchar('repository_name', { length: 256 }),
    durationMs: integer('duration_ms').notNull(),
  },
  // The export walks a user's range in (at, id) order; the history reads the daily rollup.
  (table) => [
    index('usage_records_user_at_idx').on(table.userId, table.at, table.id),
    index('usage_records_org_at_idx').on(table.orgId, table.at, table.id),
    oneOwner('usage_records', table),
  ],
);

export type UsageRecord = typeof usageRecords.$inferSelect;
