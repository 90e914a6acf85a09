import { sql } from 'drizzle-orm';
import { bigint, check, index, jsonb, numeric, pgEnum, pgTable, primaryKey, text, uniqueIndex, uuid, varchar } from 'drizzle-orm/pg-core';
import { createdAt, primaryUuid, timestampMs, updatedAt } from './columns.js';
import { users } from './users.js';

/** decisions.md §15's actions. Next round adds `installation.moved` and `connection.moved`. */
export const AUDIT_ACTIONS = [
  'org.created',
  'org.updated',
  'member.invited',
  'invitation.revoked',
  'member.joined',
  'member.role_changed',
  'member.removed',
  'installation.moved',
  'connection.moved',
  'settings.changed',
  'key.added',
  'key.removed',
  'spend_limit.changed',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export const ORG_ROLES = ['owner', 'admin', 'member'] as const;
export type OrgRole = (typeof ORG_ROLES)[number];
export const orgRoleEnum = pgEnum('org_role', ORG_ROLES);

/**
 * A team (decisions.md §15). Everything it holds references it with ON DELETE CASCADE, so deleting
 * the row in one transaction deletes its members, invitations and audit log with it.
 */
export const organizations = pgTable(
  'organizations',
  {
    id: primaryUuid(),
    name: varchar('name', { length: 56 }).notNull(),
    /** Derived from the name at creation and kept on renames: a stable handle (docs/decisions.md, organizations). */
    slug: varchar('slug', { length: 64 }).notNull(),
    /** USD per UTC month; null: no limit. */
    monthlySpendLimitUsd: numeric('monthly_spend_limit_usd', { precision: 18, scale: 10, mode: 'number' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [uniqueIndex('organizations_slug_key').on(table.slug)],
);

export const organizationMembers = pgTable(
  'organization_members',
  {
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    role: orgRoleEnum('role').notNull(),
    joinedAt: timestampMs('joined_at').notNull().defaultNow(),
  },
  // "My organizations" (and, next, "pull requests mine or my organizations'") start from the user.
  (table) => [primaryKey({ columns: [table.orgId, table.userId] }), index('organization_members_user_idx').on(table.userId, table.orgId)],
);

/** An invitation by email; the token is shown once (in the email) and stored as its SHA-256. */
export const organizationInvitations = pgTable(
  'organization_invitations',
  {
    id: primaryUuid(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    email: varchar('email', { length: 264 }).notNull(),
    role: orgRoleEnum('role').notNull(),
    tokenHash: varchar('token_hash', { length: 64 }).notNull(),
    invitedBy: uuid('invited_by').references(() => users.id, { onDelete: 'set null' }),
    expiresAt: timestampMs('expires_at').notNull(),
    acceptedAt: timestampMs('accepted_at'),
    acceptedBy: uuid('accepted_by').references(() => users.id, { onDelete: 'set null' }),
    revokedAt: timestampMs('revoked_at'),
    createdAt: createdAt(),
  },
  (table) => [
    uniqueIndex('organization_invitations_token_key').on(table.tokenHash),
    index('organization_invitations_org_idx').on(table.orgId, table.createdAt),
    check('organization_invitations_email_lowercase', sql`${table.email} = lower(${table.email})`),
  ],
);

/** Who changed what in an organization, newest first by `id` (the page cursor). No secret goes in. */
export const auditEvents = pgTable(
  'audit_events',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    at: timestampMs('at').notNull().defaultNow(),
    actorUserId: uuid('actor_user_id').references(() => users.id, { onDelete: 'set null' }),
    /** The actor's name when it happened: the entry outlives the account. */
    actorName: varchar('actor_name', { length: 56 }).notNull(),
    action: varchar('action', { length: 32 }).$type<AuditAction>().notNull(),
    target: text('target').notNull(),
    details: jsonb('details').$type<Record<string, unknown>>().notNull().default({}),
  },
  (table) => [index('audit_events_org_idx').on(table.orgId, table.id)],
);

export type Organization = typeof organizations.$inferSelect;
export type OrganizationMember = typeof organizationMembers.$inferSelect;
export type OrganizationInvitation = typeof organizationInvitations.$inferSelect;
export type AuditEvent = typeof auditEvents.$inferSelect;
