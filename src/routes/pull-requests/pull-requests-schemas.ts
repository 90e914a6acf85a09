import { z } from 'zod';
import { HOST_KINDS } from '../../domain/host-kinds.js';
import { cursorSchema, isoTimestamp } from '../common-schemas.js';

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
  /** One space (decisions.md §15): `personal` or an organization's id; without it, every one the caller may see. */
  org: z.string().trim().min(1).max(64).optional(),
});

export const listParams = z.object({ lastUpdatedAt: cursorSchema });

/** GitHub's id, or the record's UUID for a GitLab merge request (decisions.md §12). */
export const apiPrIdSchema = z.union([z.number(), z.uuid()]);

export const listItem = z.object({
  title: z.string(),
  prId: apiPrIdSchema,
  provider: z.enum(HOST_KINDS),
  /** The pull request's or merge request's web page. */
  url: z.string().nullable(),
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
  /** The organization it belongs to, null in the personal space. */
  org: z.object({ id: z.uuid(), name: z.string() }).nullable(),
});

export const summaryQuery = z.object({ updatedAt: cursorSchema.optional(), search: searchSchema });

export const summaryItem = z.object({
  id: z.uuid(),
  prId: apiPrIdSchema,
  number: z.number().int(),
  title: z.string(),
  createdAt: isoTimestamp,
  htmlUrl: z.string().nullable(),
});

export const diffParams = z.object({ prId: z.string().trim().min(1).max(64).meta({ description: "GitHub's pull-request id or the internal id" }) });

export const diffText = z.string().meta({ description: 'The unified diff (text/plain)' });
