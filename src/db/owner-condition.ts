import { and, eq, isNull, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { Owner } from '../domain/owners.js';

/**
 * The rows of one owner in a table with `ownerColumns`. The other owner column is null by the
 * table's check; saying so lets an index that leads with both columns be read by its full prefix.
 */
export const ownedBy = (table: { userId: PgColumn; orgId: PgColumn }, owner: Owner): SQL =>
  owner.kind === 'user' ? and(eq(table.userId, owner.id), isNull(table.orgId))! : and(isNull(table.userId), eq(table.orgId, owner.id))!;

/** The insert values naming the owner. */
export const ownerValues = (owner: Owner) => (owner.kind === 'user' ? { userId: owner.id, orgId: null } : { userId: null, orgId: owner.id });
