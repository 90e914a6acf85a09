import { sql } from 'drizzle-orm';
import { check, uuid, type AnyPgColumn } from 'drizzle-orm/pg-core';
import { organizations } from './organizations.js';
import { users } from './users.js';

/**
 * Whose a row is (decisions.md §15): a user's personal space or an organization's, exactly one of
 * the two. Both cascade: the row goes with its owner.
 */
export const ownerColumns = () => ({
  userId: uuid('user_id').references(() => users.id, { onDelete: 'cascade' }),
  orgId: uuid('org_id').references(() => organizations.id, { onDelete: 'cascade' }),
});

/** The check that a row has one owner, named after its table. */
export const oneOwner = (table: string, columns: { userId: AnyPgColumn; orgId: AnyPgColumn }) =>
  check(`${table}_one_owner`, sql`num_nonnulls(${columns.userId}, ${columns.orgId}) = 1`);
