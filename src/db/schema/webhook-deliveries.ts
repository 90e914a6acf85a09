import { sql } from 'drizzle-orm';
import { bigint, boolean, index, pgTable, uuid, varchar } from 'drizzle-orm/pg-core';
import { timestampMs } from './columns.js';
import { users } from './users.js';

/**
 * Every accepted delivery, keyed by `x-github-delivery`: a redelivery finds its row and changes
 * nothing. It is also the outbox of the intake: a delivery that starts a review is stored with
 * `enqueuedAt` null in the same transaction as its pull request, and a relay enqueues whatever is
 * still null, so a delivery accepted while the queue was down is never lost. A draft's delivery whose
 * repository configuration was not cached at intake `awaitsConfig`: its job (`undecidedDraft`) reads
 * `.ai-review.yml` and starts the run only if the file reviews drafts.
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    deliveryId: varchar('delivery_id', { length: 128 }).primaryKey(),
    event: varchar('event', { length: 64 }).notNull(),
    action: varchar('action', { length: 64 }).notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    prId: bigint('pr_id', { mode: 'number' }).notNull(),
    headSha: varchar('head_sha', { length: 64 }).notNull(),
    startsReview: boolean('starts_review').notNull(),
    awaitsConfig: boolean('awaits_config').notNull().default(false),
    receivedAt: timestampMs('received_at').notNull().defaultNow(),
    enqueuedAt: timestampMs('enqueued_at'),
  },
  (table) => [
    // The relay's scan: deliveries that should be queued and are not yet.
    index('webhook_deliveries_unqueued_idx').on(table.receivedAt).where(sql`(${table.startsReview} or ${table.awaitsConfig}) and ${table.enqueuedAt} is null`),
    index('webhook_deliveries_user_idx').on(table.userId),
  ],
);

export type WebhookDelivery = typeof webhookDeliveries.$inferSelect;
