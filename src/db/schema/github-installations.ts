import { sql } from 'drizzle-orm';
import { bigint, boolean, index, jsonb, pgTable, uuid, varchar } from 'drizzle-orm/pg-core';
import { createdAt, timestampMs, updatedAt } from './columns.js';
import { organizations } from './organizations.js';
import { users } from './users.js';

export interface InstalledRepository {
  id: number;
  fullName: string;
}

/**
 * An install of the GitHub App (decisions.md §8), keyed by GitHub's installation id. It belongs to
 * the registered user whose GitHub id installed it (`senderId`); until that person signs in or
 * links GitHub it is unclaimed (`userId` null). Uninstalled ones are kept (`deletedAt`), as are the
 * pull requests and reviews that came through them.
 */
export const githubInstallations = pgTable(
  'github_installations',
  {
    id: bigint('id', { mode: 'number' }).primaryKey(),
    userId: uuid('user_id').references(() => users.id, { onDelete: 'set null' }),
    /**
     * The organization it belongs to (decisions.md §15), null in its user's personal space. No
     * cascade: deleting an organization hands its installations back to the deleting owner, a step
     * of its deletion, so a missing step fails instead of losing the owner.
     */
    orgId: uuid('org_id').references(() => organizations.id),
    senderId: bigint('sender_id', { mode: 'number' }).notNull(),
    accountId: bigint('account_id', { mode: 'number' }).notNull(),
    accountLogin: varchar('account_login', { length: 100 }).notNull(),
    accountType: varchar('account_type', { length: 32 }).notNull(),
    /** `all` or `selected`: with `all`, every repository of the account is covered. */
    repositorySelection: varchar('repository_selection', { length: 16 }).notNull(),
    repositories: jsonb('repositories').$type<InstalledRepository[]>().notNull().default([]),
    suspended: boolean('suspended').notNull().default(false),
    deletedAt: timestampMs('deleted_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    index('github_installations_user_idx').on(table.userId),
    index('github_installations_org_idx').on(table.orgId),
    // Claiming at sign-in looks for the unclaimed installs of one GitHub id.
    index('github_installations_unclaimed_idx').on(table.senderId).where(sql`${table.userId} is null`),
  ],
);

export type GitHubInstallation = typeof githubInstallations.$inferSelect;
