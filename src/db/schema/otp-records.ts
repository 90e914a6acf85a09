import { integer, pgTable, text, varchar } from 'drizzle-orm/pg-core';
import { createdAt, timestampMs } from './columns.js';

/**
 * A pending verification, keyed by `<email>` (signup) or `forgot:<email>` (recovery). A signup
 * creates no user row: the account is created from this record when the email is verified.
 */
export const otpRecords = pgTable('otp_records', {
  key: varchar('key', { length: 300 }).primaryKey(),
  otpHash: varchar('otp_hash', { length: 64 }).notNull(),
  expiresAt: timestampMs('expires_at').notNull(),
  /** Tries made, right or wrong; claimed atomically before the code is compared. */
  attempts: integer('attempts').notNull().default(0),
  /** Signup only: the name and argon2id password hash to create the account with. */
  name: varchar('name', { length: 56 }),
  passwordHash: text('password_hash'),
  /** Recovery only: when the OTP was verified; reset-password must follow within 10 minutes. */
  verifiedAt: timestampMs('verified_at'),
  createdAt: createdAt(),
});

export type OtpRecord = typeof otpRecords.$inferSelect;
