import { sql } from 'drizzle-orm';
import { bigint, boolean, check, pgEnum, pgTable, text, uniqueIndex, varchar } from 'drizzle-orm/pg-core';
import { createdAt, primaryUuid, timestampMs, updatedAt } from './columns.js';

export const loginMethodEnum = pgEnum('login_method', ['codehost', 'email']);

export const users = pgTable(
  'users',
  {
    id: primaryUuid(),
    name: varchar('name', { length: 56 }).notNull(),
    email: varchar('email', { length: 264 }).notNull(),
    /** argon2id hash; null for accounts created through GitHub that never set one. */
    password: text('password'),
    loginMethod: loginMethodEnum('login_method').notNull(),
    codehostUsername: varchar('codehost_username', { length: 100 }),
    /** GitHub user ids exceed 2^31. */
    codehostUserId: bigint('codehost_user_id', { mode: 'number' }),
    /** GitHub OAuth token, AES-256-GCM ciphertext. */
    codehostToken: text('codehost_token'),
    /** A GitHub App's user token expires (8 hours) and comes with a refresh token, AES-256-GCM ciphertext; null for OAuth apps' tokens. */
    codehostRefreshToken: text('codehost_refresh_token'),
    codehostTokenExpiresAt: timestampMs('codehost_token_expires_at'),
    isActive: boolean('is_active').notNull().default(true),
    lastLoginAt: timestampMs('last_login_at'),
    emailNotification: boolean('email_notification').notNull().default(true),
    /** The address was proven (a signup code, or GitHub's verified email); changing it clears this. */
    emailVerified: boolean('email_verified').notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    uniqueIndex('users_email_key').on(table.email),
    uniqueIndex('users_codehost_username_key').on(table.codehostUsername),
    uniqueIndex('users_codehost_user_id_key').on(table.codehostUserId),
    check('users_email_lowercase', sql`${table.email} = lower(${table.email})`),
  ],
);

export type User = typeof users.$inferSelect;
