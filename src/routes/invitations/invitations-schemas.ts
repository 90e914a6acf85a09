import { z } from 'zod';
import { isoTimestamp } from '../common-schemas.js';
import { roleSchema } from '../orgs/orgs-schemas.js';

/** Any string is looked up: one that names no invitation is a 404. */
const tokenSchema = z.string().trim().min(1).max(256);

export const tokenParams = z.object({ token: tokenSchema });
export const acceptBody = z.object({ token: tokenSchema });

export const previewResponse = z.object({ orgName: z.string(), role: roleSchema, email: z.string(), expiresAt: isoTimestamp });
