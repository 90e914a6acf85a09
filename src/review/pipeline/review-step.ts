import pLimit from 'p-limit';
import type { Mailer } from '../../adapters/mail/mailer.js';
import { UnrecoverableJobError, type Job } from '../../adapters/queue/job-queue.js';
import type { ModelChoice, ModelRouter } from '../../ai/model-router.js';
import { FileRefusedError } from '../../code-hosts/code-host.js';
import type { ReadingHosts } from '../../code-hosts/code-hosts.js';
import type { PullRequest, Review, User } from '../../db/schema/index.js';
import { AppError } from '../../lib/app-error.js';
import { apiPrId } from '../../lib/ids.js';
import type { Logger } from '../../lib/logger.js';
import type { FindingFeedbackRepository } from '../../repositories/finding-feedback-repository.js';
import type { ReviewRepository } from '../../repositories/review-repository.js';
import { globMatcher, instructionMatcher } from '../../repository-config/path-globs.js';
import { DEFAULT_REPOSITORY_CONFIG, type RepositoryConfig } from '../../repository-config/repository-config-schema.js';
import { PROMPT_LEARNINGS } from '../../services/finding-feedback-service.js';
import { suppressRejected } from '../findings/suppress-findings.js';
import { MIN_TOKEN_BUDGET, type ReviewChunk } from '../prepare/chunking.js';
import { carryOverFindings, withCarried } from '../findings/carry-over.js';
import { assignFindingIds } from '../findings/fingerprint.js';
import { finalizeReview, type ChunkReview } from '../findings/merge-reviews.js';
import { prepareReviewInSlices } from '../prepare/prepare-review.js';
import { buildReviewPrompt, DEFAULT_MAX_FINDINGS, DEFAULT_OUTPUT_RESERVE, promptOverheadTokens, type FileContext, type PromptSettings } from '../ask/prompts.js';
import type { ReviewOutput } from '../answer/review-output.js';
import { countBySeverity, scoreReview } from '../findings/score.js';
import { countTokensUpTo } from '../prepare/tokens.js';
import { applyVerification, buildVerificationPrompt, withoutVerification } from '../answer/verification.js';
import { pullRequestDescription } from '../../services/pull-request-description.js';
import { askForReview, askForVerification } from '../ask/model-review.js';
import { reviewCompletedEmail } from './review-email.js';
import { reviewOverview } from './review-overview.js';
import { isCurrentRun } from './review-runs.js';

/** When a model's catalog does not say, assume a context most current chat models exceed. */
export const DEFAULT_CONTEXT_LENGTH = 32_000;
/** Model calls of one review at once: bounded so a 2,000-file PR does not open 250 connections. */
export const CHUNK_CONCURRENCY = 3;
/** Deep mode: share of the context the full files may take. */
const FILE_CONTEXT_SHARE = 0.3;
/** Deep mode: files fetched for context at most, and the room below which fetching stops. */
const MAX_CONTEXT_FILES = 50;
const MIN_CONTEXT_FILE_TOKENS = 200;

export interface ReviewStepDeps {
  reviews: ReviewRepository;
  models: ModelRouter;
  /** The change's code host: deep mode reads the changed files' full content from it. */
  readers: ReadingHosts;
  mailer: Mailer;
  publicUrl: string;
  log: Logger;
  /** `REVIEW_MAX_FILE_DIFF_BYTES`: a file's diff above it is skipped as too large (default 1 MiB). */
  maxFileDiffBytes?: number;
  /** The team's verdicts and learnings (decisions.md §10). */
  feedback: FindingFeedbackRepository;
}

/**
 * `extractedPrContent`: the review itself. The diff (or, after a push, the diff since the last
 * review) is parsed, filtered, split into chunks that fit the model's context, reviewed chunk by
 * chunk, and the findings are anchored to the diff, filtered and merged; deep mode adds the full
 * files and a verification pass. Nothing reviewable is left out: every reviewable line is in a chunk.
 * True when this run completed the review (its outcome is then published, decisions.md §8).
 */
export async function reviewContent(deps: ReviewStepDeps, job: Job<'extractedPrContent'>): Promise<boolean> {
  const { pullRequestId, runId } = job.payload;
  const run = await deps.reviews.loadRun(pullRequestId);
  if (run === undefined || !isCurrentRun(run.review, runId)) return false;
  const { review, pr, owner, settings } = run;
  if (pr.diffContent === null) return false;

  const usage = { kind: 'review', pullRequestId: pr.id, repositoryName: pr.repositoryName } as const;
  const choice = await deps.models.resolve({ userId: pr.userId, mode: review.mode, settings, usage }).catch((error: unknown) => {
    // No model this user may use (allowance spent, unknown model): retrying will not change that.
    if (error instanceof AppError && error.statusCode < 500) throw new UnrecoverableJobError(error.message);
    throw error;
  });

  // What the repository's `.ai-review.yml` and the team's feedback add (decisions.md §10).
  const config = (review.repositoryConfig as RepositoryConfig | null) ?? DEFAULT_REPOSITORY_CONFIG;
  const { rejected, learnings } = await deps.feedback.forReview(pr.userId, pr.repositoryName, PROMPT_LEARNINGS);
  const instructionsFor = instructionMatcher(config.instructions);

  const incremental = review.incrementalDiff !== null;
  const contextLength = choice.contextLength ?? DEFAULT_CONTEXT_LENGTH;
  const fileContextTokens = review.mode === 'deep' ? Math.floor(contextLength * FILE_CONTEXT_SHARE) : 0;
  const prompt = {
    mode: review.mode,
    settings: settings satisfies PromptSettings | null,
    pullRequest: { title: pr.title, body: pullRequestDescription(pr), headBranch: pr.headBranch, baseBranch: pr.baseBranch },
    fileContextTokens,
    instructions: config.instructions.map((instruction) => instruction.text),
    learnings,
  };
  const { changes, reviewable, skipped, skippedChanges, coverage, chunks } = await prepareReviewInSlices(review.incrementalDiff ?? pr.diffContent, {
    maxFileDiffBytes: deps.maxFileDiffBytes,
    exclude: globMatcher(config.exclude),
    include: globMatcher(config.include),
    tokenBudget: ({ skipped, reviewable }) => {
      const overhead = promptOverheadTokens({ ...prompt, skipped, reviewablePaths: reviewable.map((file) => file.path), chunkCount: 2 });
      const budget = contextLength - overhead - DEFAULT_OUTPUT_RESERVE[review.mode];
      if (budget < MIN_TOKEN_BUDGET) {
        throw new UnrecoverableJobError(`The model ${choice.modelId} has a context of ${contextLength} tokens: too small to review this pull request; choose a larger model`);
      }
      return budget;
    },
  });
  const reviewablePaths = reviewable.map((file) => file.path);
  // Fetched up to 80% of their share: the line numbers they are shown with take the rest.
  const fileContext = fileContextTokens > 0 ? await fullFiles(deps, pr, owner, review, reviewablePaths, fileContextTokens * 0.8) : [];
  const promptBase = { ...prompt, skipped, reviewablePaths, fileContext };

  const limit = pLimit(CHUNK_CONCURRENCY);
  const parts = await Promise.all(
    chunks.map((chunk) => limit(() => reviewChunk(deps.log, choice, chunk, chunks.length, { ...promptBase, instructions: instructionsFor(chunk.files) }))),
  );
  const lastFindings = previousFindings(review);
  const previous = incremental ? lastFindings : [];
  const { review: final, counts } = finalizeReview(parts, reviewable, {
    maxFindings: DEFAULT_MAX_FINDINGS[review.mode],
    incremental: incremental ? { previous, pushDiff: changes } : undefined,
  });
  const identified = assignFindingIds(incremental ? withCarried(final.comments, carryOverFindings(previous, changes)) : final.comments, lastFindings);
  const { kept: comments, suppressed } = suppressRejected(identified, rejected);
  const output = {
    ...final,
    summary: { ...final.summary, overview: reviewOverview(final, { chunkCount: chunks.length, skipped, layoutOnlyPaths: [...new Set(skippedChanges.map((entry) => entry.path))], incrementalSince: incremental ? review.reviewdSha : null }), findingsCount: comments.length },
    comments,
    reviewedFiles: reviewablePaths,
    skippedFiles: skipped,
    skippedChanges,
    droppedFindings: { ...counts, suppressed },
    model: { id: choice.modelId, source: choice.source },
    reviewedCommit: review.headSha,
    ...(incremental ? { incrementalSince: review.reviewdSha } : {}),
    configProblems: config.problems,
    repositoryConfig: { inlineMinSeverity: config.inlineMinSeverity },
  };

  const completed = await deps.reviews.complete(pr.id, runId, {
    reviewSummary: output.summary.overview,
    reviewRawJson: output,
    reviewdSha: review.headSha ?? pr.headSha,
    coverage,
  });
  if (completed) await notify(deps, pr, owner, output);
  return completed;
}

async function reviewChunk(
  log: Logger,
  choice: ModelChoice,
  chunk: ReviewChunk,
  chunkCount: number,
  base: Omit<Parameters<typeof buildReviewPrompt>[0], 'chunk' | 'chunkCount'>,
): Promise<ChunkReview> {
  let review = await askForReview(choice.model, buildReviewPrompt({ ...base, chunk, chunkCount }));
  if (base.mode === 'deep' && review.comments.length > 0) {
    // A second look: the model re-checks each finding against the code and drops what it rejects.
    // The first pass is paid for: a verification that fails keeps its findings, marked unverified.
    const prompt = buildVerificationPrompt({ findings: review.comments, chunk, fileContext: base.fileContext, settings: base.settings });
    const verified = await askForVerification(choice.meteredAs({ kind: 'verification' }), prompt).then(
      (verification) => applyVerification(review.comments, verification),
      (error: unknown) => {
        log.warn({ err: error, chunk: chunk.index }, 'the verification failed: findings kept unverified');
        return withoutVerification(review.comments);
      },
    );
    review = { ...review, comments: verified.findings };
  }
  return { review, changedLines: chunk.changedLines };
}

/**
 * Deep mode: the changed files' full new content, in diff order, as many as fit in the budget. Files
 * are fetched one by one until the budget is nearly used or `MAX_CONTEXT_FILES` were fetched: a
 * large pull request would otherwise cost a GitHub request per file for context that cannot fit.
 */
async function fullFiles(deps: ReviewStepDeps, pr: PullRequest, owner: User, review: Review, paths: string[], tokenBudget: number): Promise<FileContext[]> {
  const ref = review.headSha ?? pr.headSha;
  const files: FileContext[] = [];
  let left = tokenBudget;
  const reader = await deps.readers.reader(pr, owner);
  for (const path of paths.slice(0, MAX_CONTEXT_FILES)) {
    if (left < MIN_CONTEXT_FILE_TOKENS) break;
    const content = await reader.fileAt(path, ref).catch((error: unknown) => {
      // The host refusing a file will not change by retrying (as for the diff).
      throw error instanceof FileRefusedError ? new UnrecoverableJobError(`${error.host} refused the content of ${path} (${error.message})`) : error;
    });
    if (content === null) continue;
    const tokens = countTokensUpTo(content, left);
    if (tokens > left) continue;
    left -= tokens;
    files.push({ path, content });
  }
  return files;
}

function previousFindings(review: Review) {
  const raw = review.reviewRawJson as { comments?: Array<ReviewOutput['comments'][number] & { id?: string }> } | null;
  return raw?.comments ?? [];
}

async function notify(deps: ReviewStepDeps, pr: PullRequest, owner: User, review: ReviewOutput): Promise<void> {
  if (!owner.emailNotification) return;
  try {
    await deps.mailer.send(
      reviewCompletedEmail({
        to: owner.email,
        name: owner.name,
        prTitle: pr.title,
        repository: pr.repositoryName,
        prNumber: pr.prNumber,
        prHtmlUrl: pr.htmlUrl,
        score: scoreReview(review),
        counts: countBySeverity(review.comments),
        reviewUrl: `${deps.publicUrl}/pulls/${apiPrId(pr)}`,
      }),
    );
  } catch (error) {
    deps.log.warn({ err: error, pullRequestId: pr.id }, 'could not send the review email');
  }
}
