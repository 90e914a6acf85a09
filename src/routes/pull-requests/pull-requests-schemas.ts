import { z } from 'zod';
import { isoTimestamp } from '../common-schemas.js';

/** A cursor: ISO 8601 or epoch milliseconds, compared at millisecond precision. */
export const cursorSchema = z
  .string()
  .trim()
  .min(1)
  .transform((value, context) => {
    const date = /^\d+$/.test(value) ? new Date(Number(value)) : new Date(value);
    if (Number.isNaN(date.getTime())) {
      context.addIssue({ code: 'custom', message: 'must be an ISO 8601 timestamp or epoch milliseconds' });
      return z.NEVER;
    }
    return date;
  })
  .meta({ example: '2026-01-31T12:00:00.000Z' });

const searchSchema = z.string().trim().max(200).optional();

export const listQuery = z.object({
  lastUpdatedAt: cursorSchema.optional(),
  search: searchSchema,
  reviewStatus: z.enum(['pending', 'completed', 'failed', 'all']).default('all'),
  // Repeat the parameter for several: ?repo=a/b&repo=c/d
  repo: z
    .union([z.string().max(256), z.array(z.string().max(256)).max(50)])
    .optional()
    .transform((value) => (value === undefined ? [] : Array.isArray(value) ? value : [value])),
  order: z.enum(['asc', 'desc']).default('desc'),
});

export const listParams = z.object({ lastUpdatedAt: cursorSchema });

export const listItem = z.object({
  title: z.string(),
  prId: z.number(),
  number: z.number().int(),
  repositoryName: z.string(),
  diff: z.string(),
  additions: z.number().int().nullable(),
  deletions: z.number().int().nullable(),
  status: z.enum(['pending', 'completed', 'failed']),
  createdAt: isoTimestamp,
  headBranch: z.string(),
  baseBranch: z.string(),
  updatedAt: isoTimestamp,
  htmlUrl: z.string().nullable(),
});

export const summaryQuery = z.object({ updatedAt: cursorSchema.optional(), search: searchSchema });

export const summaryItem = z.object({
  id: z.uuid(),
  prId: z.number(),
  number: z.number().int(),
  title: z.string(),
  createdAt: isoTimestamp,
  htmlUrl: z.string().nullable(),
});
