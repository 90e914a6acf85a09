import { z } from 'zod';
import { emailSchema, isoTimestamp, nameSchema, passwordSchema } from '../common-schemas.js';

export const signupBody = z.object({ name: nameSchema, email: emailSchema, password: passwordSchema });

export const otpSchema = z.string().regex(/^\d{6}$/, 'must be 6 digits');

export const verifyBody = z.object({ email: emailSchema, otp: otpSchema });

// Login checks the stored hash; the length rule only keeps absurd inputs away from argon2.
export const loginBody = z.object({ email: emailSchema, password: z.string().min(1, 'must not be empty').max(128, 'must be at most 128 characters') });

export const forgotPasswordBody = z.object({ email: emailSchema });

export const resetPasswordBody = z.object({
  email: emailSchema.optional(),
  oldPassword: z.string().min(1).max(128).optional(),
  password: passwordSchema,
});

export const signedInResponse = z.object({
  message: z.string(),
  user: z.object({ id: z.uuid(), name: z.string(), email: z.string() }),
});

const userAgentSchema = z
  .object({ browser: z.string().nullable(), os: z.string().nullable(), platform: z.string().nullable() })
  .nullable();

const sessionSchema = z.object({
  id: z.string(),
  createdAt: isoTimestamp,
  expiresAt: isoTimestamp.nullable(),
  userAgent: userAgentSchema,
});

/** With an API token, the fields describe no cookie session and are null (decisions.md §17). */
const tokenSessionSchema = z.object({ id: z.null(), createdAt: z.null(), expiresAt: z.null(), userAgent: z.null() });

export const sessionResponse = z.object({ userId: z.uuid(), session: z.union([sessionSchema, tokenSessionSchema]) });

export const sessionsResponse = z.array(sessionSchema.extend({ current: z.boolean() }));
