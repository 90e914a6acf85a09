import { pgTable, text, varchar } from 'drizzle-orm/pg-core';
import { createdAt } from './columns.js';

/**
 * Facts about this database that every process sharing it must agree on, set by the first process
 * to start (e.g. the fingerprint of the encryption key).
 */
export const serviceSettings = pgTable('service_settings', {
  name: varchar('name', { length: 64 }).primaryKey(),
  value: text('value').notNull(),
  createdAt: createdAt(),
});
