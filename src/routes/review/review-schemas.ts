import { z } from 'zod';
import { HOST_KINDS } from '../../domain/host-kinds.js';
import { apiPrIdSchema } from '../pull-requests/pull-requests-schemas.js';
import { FINDING_VERDICTS, REVIEW_MODES } from '../../db/schema/index.js';
import { parsePullRequestSelector } from '../../lib/ids.js';
import { isoTimestamp } from '../common-schemas.js';

/** GitHub's pull request id (digits) or the internal id (UUID), parsed into which one it is. */
export const prSelector = z.union([z.string(), z.number()]).transform((value, context) => {
  const selector = parsePullRequestSelector(value);
  if (selector === undefined) {
    context.addIssue({ code: 'custom', message: 'must be a GitHub pull request id or a review id' });
    return z.NEVER;
  }
  return selector;
});

export const informationParams = z.object({ prId: prSelector });

export const startParams = z.object({ prId: prSelector });
export const startBody = z
  .object({ prId: prSelector.optional(), mode: z.enum(REVIEW_MODES).optional() })
  .nullish()
  .transform((body) => body ?? {});

const coverageSchema = z.object({ files: z.number(), reviewableFiles: z.number(), lines: z.number(), reviewableLines: z.number() });

/** decisions.md §8: how the review reached the pull request through the GitHub App. */
const publicationSchema = z.object({
  state: z.enum(['not_applicable', 'pending', 'published', 'failed']),
  reason: z.string().nullable(),
  reviewUrl: z.string().nullable(),
  summaryCommentUrl: z.string().nullable(),
  checkRunUrl: z.string().nullable(),
});

export const informationItem = z.object({
  id: z.uuid(),
  prId: apiPrIdSchema,
  provider: z.enum(HOST_KINDS),
  /** The pull request's or merge request's web page. */
  url: z.string().nullable(),
  reviewStatus: z.enum(['pending', 'completed', 'failed']),
  reviewSummary: z.string().nullable(),
  reviewdSha: z.string().nullable(),
  reviewStartedAt: isoTimestamp.nullable(),
  reviewCompletedAt: isoTimestamp.nullable(),
  reviewRawJSON: z.unknown(),
  prTitle: z.string(),
  prState: z.string(),
  prIsDraft: z.boolean(),
  prIsMerged: z.boolean(),
  prHeadBranch: z.string(),
  prBaseBranch: z.string(),
  prCommitCount: z.number().nullable(),
  prAddtions: z.number().nullable(),
  prDeletions: z.number().nullable(),
  changedFiles: z.number().nullable(),
  prHtmlUrl: z.string().nullable(),
  state: z.string().nullable(),
  failureReason: z.string().nullable(),
  mode: z.enum(REVIEW_MODES).nullable(),
  coverage: coverageSchema.nullable(),
  attemptNumber: z.number().int().nullable(),
  duration: z.number().int().nullable(),
  triggeredBy: z.enum(['webhook', 'manual']).nullable(),
  publication: publicationSchema,
  /** Files left out of the review, with why (`.ai-review.yml`'s `exclude` among them). */
  skippedFiles: z.array(z.object({ path: z.string(), reason: z.string() })),
  /** What was wrong in the repository's `.ai-review.yml`, each with its line. */
  configProblems: z.array(z.object({ line: z.number().int(), message: z.string() })),
  /** What the latest run read besides the diff: blocks shown, tool calls, their tokens, and where the code came from. */
  context: z
    .object({
      scopes: z.number().int(),
      definitions: z.number().int(),
      callers: z.number().int(),
      toolCalls: z.number().int(),
      tokens: z.number().int(),
      snapshot: z.enum(['tarball', 'files', 'none']),
    })
    .nullable(),
});

export const findingParams = z.object({
  prId: prSelector,
  findingId: z.string().trim().min(1).max(64).regex(/^[0-9A-Za-z_-]+$/, 'must be a finding id'),
});
export const verdictBody = z.strictObject({
  verdict: z.enum(FINDING_VERDICTS),
  note: z.string().max(2000, 'must be at most 2000 characters').nullish(),
});

export const learningsQuery = z.object({
  repo: z.string().trim().regex(/^[^/\s]+\/[^/\s]+$/, 'must be owner/name').max(256).optional(),
});
export const learningParams = z.object({ id: z.uuid({ error: 'must be a learning id' }) });
export const learningItem = z.object({
  id: z.uuid(),
  repositoryName: z.string(),
  note: z.string(),
  findingTitle: z.string(),
  createdAt: isoTimestamp,
});

export const listItem = z.object({
  id: z.uuid(),
  prId: apiPrIdSchema,
  provider: z.enum(HOST_KINDS),
  url: z.string().nullable(),
  pullRequestId: z.uuid(),
  prDbId: z.uuid(),
  prNumber: z.number().int(),
  prTitle: z.string(),
  repoFullName: z.string(),
  status: z.enum(['pending', 'completed', 'failed']),
  score: z.number(),
  summary: z.string().nullable(),
  criticalCount: z.number().int(),
  warningCount: z.number().int(),
  suggestionCount: z.number().int(),
  totalFindings: z.number().int(),
  reviewedAt: isoTimestamp.nullable(),
});
