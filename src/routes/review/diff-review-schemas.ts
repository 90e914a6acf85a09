import { z } from 'zod';
import { DIFF_REVIEW_STATUSES, FINDING_VERDICTS, REVIEW_MODES } from '../../db/schema/index.js';
import { isoTimestamp } from '../common-schemas.js';

/** A diff review's body: the diff and the files may be large, up to this (the service's other bodies stop at 1 MiB). */
export const DIFF_REVIEW_BODY_LIMIT_BYTES = 8 * 1024 * 1024;
/** Files sent with a diff at most. */
export const MAX_SENT_FILES = 2_000;

const repositoryName = z.string().trim().regex(/^[^/\s]+\/[^/\s]+$/, 'must be owner/name').max(256);

/** `POST /review/diff` (decisions.md §17). */
export const diffReviewBody = z.strictObject({
  diff: z.string().refine((value) => value.trim() !== '', 'must not be empty'),
  mode: z.enum(REVIEW_MODES).optional(),
  repository: repositoryName.optional(),
  title: z.string().trim().max(256, 'must be at most 256 characters').optional(),
  files: z
    .array(z.strictObject({ path: z.string().min(1).max(1024), content: z.string() }))
    .max(MAX_SENT_FILES, `must be at most ${MAX_SENT_FILES} files`)
    .optional(),
  /** The text of an `.ai-review.yml` (decisions.md §10). */
  config: z.string().max(64 * 1024, 'must be at most 64 KiB').optional(),
  orgId: z.string().optional(),
});
export type DiffReviewBody = z.infer<typeof diffReviewBody>;

export const diffReviewParams = z.object({ reviewId: z.uuid({ error: 'must be a diff review id' }) });
export const diffFindingParams = z.object({
  reviewId: z.uuid({ error: 'must be a diff review id' }),
  findingId: z.string().trim().min(1).max(64).regex(/^[0-9A-Za-z_-]+$/, 'must be a finding id'),
});
export const diffVerdictBody = z.strictObject({
  verdict: z.enum(FINDING_VERDICTS),
  note: z.string().max(2000, 'must be at most 2000 characters').nullish(),
});

export const diffReviewQueued = z.object({ reviewId: z.uuid(), status: z.literal('queued') });

const coverageSchema = z.object({ files: z.number(), reviewableFiles: z.number(), lines: z.number(), reviewableLines: z.number() });

/** The fields of a `GET /review/information/:prId` item of those names, and the score `GET /review/list` gives. */
export const diffReviewResult = z.object({
  reviewSummary: z.string().nullable(),
  score: z.number(),
  reviewRawJSON: z.unknown(),
  skippedFiles: z.array(z.object({ path: z.string(), reason: z.string() })),
  configProblems: z.array(z.object({ line: z.number().int(), message: z.string() })),
  coverage: coverageSchema.nullable(),
});

export const diffReviewState = z.object({
  reviewId: z.uuid(),
  status: z.enum(DIFF_REVIEW_STATUSES),
  error: z.string().optional(),
  review: diffReviewResult.optional(),
});

export const diffReviewListQuery = z.object({ cursor: z.string().trim().min(1).max(200).optional() });
export const diffReviewList = z.object({
  items: z.array(z.object({ reviewId: z.uuid(), status: z.enum(DIFF_REVIEW_STATUSES), title: z.string().nullable(), repository: z.string().nullable(), createdAt: isoTimestamp })),
  nextCursor: z.string().nullable(),
});
