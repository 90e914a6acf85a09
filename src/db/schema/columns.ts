import { timestamp, uuid } from 'drizzle-orm/pg-core';

/**
 * Millisecond precision: the API emits ISO 8601 with milliseconds and cursors are compared at that
 * precision, so an item's own `updatedAt` used as a cursor must match its stored value exactly.
 */
export const timestampMs = (name: string) => timestamp(name, { withTimezone: true, precision: 3, mode: 'date' });

export const primaryUuid = () => uuid('id').primaryKey().defaultRandom();

export const createdAt = () => timestampMs('created_at').notNull().defaultNow();

export const updatedAt = () =>
  timestampMs('updated_at')
    .notNull()
    .defaultNow()
    .$onUpdate(() => new Date());
