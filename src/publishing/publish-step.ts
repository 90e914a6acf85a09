import { AppPullRequest, type CheckRunOutput, type CheckRunRef, type InlineComment, type PostedComment } from '../adapters/github/app-pull-request.js';
import { toGitHubError, type GitHubApp } from '../adapters/github/github-app.js';
import { GitHubApiError } from '../adapters/github/github-client.js';
import { RetryLaterError, UnrecoverableJobError, type Job } from '../adapters/queue/job-queue.js';
import type { GitHubPublication, PullRequest, Review } from '../db/schema/index.js';
import { AppError } from '../lib/app-error.js';
import type { Logger } from '../lib/logger.js';
import { installationCovers, type GitHubInstallationRepository } from '../repositories/github-installation-repository.js';
import type { GitHubPublicationRepository } from '../repositories/github-publication-repository.js';
import type { ReviewRepository } from '../repositories/review-repository.js';
import { addressedReplyBody, inlineCommentBody, reviewBody, summaryCommentBody } from './comment-bodies.js';
import { addressedIdOf, findingIdOf, isSummary } from './markers.js';
import { selectInline, type HeldBack } from './select-inline.js';
import { readStoredReview, type PublishableFinding, type PublishableReview } from './stored-review.js';

export interface PublishDeps {
  reviews: ReviewRepository;
  publications: GitHubPublicationRepository;
  installations: GitHubInstallationRepository;
  app: GitHubApp;
  publicUrl: string;
  log: Logger;
}

/** The review's page in the web app (decisions.md §9): the check run's details and the summary's link. */
export const reviewPageUrl = (publicUrl: string, pr: Pick<PullRequest, 'prId'>) => `${publicUrl}/pulls/${pr.prId}`;

/**
 * `completedReview`: posts a review run in its pull request as the App (decisions.md §8). Every
 * write is preceded by reading back what the App already posted (hidden markers), so a job that
 * runs twice posts nothing twice. Publishing never changes the review itself.
 */
/** What a publishing job did: posted the finished review, put the check in progress, or nothing (a later run, access lost). */
export type PublicationOutcome = 'published' | 'check-started' | 'skipped';

export async function publishReview(deps: PublishDeps, job: Job<'completedReview'>): Promise<PublicationOutcome> {
  const { pullRequestId, runId, phase } = job.payload;
  const run = await deps.reviews.loadRun(pullRequestId);
  // A later run (a push, a re-run) publishes instead.
  if (run === undefined || run.review.runId !== runId || run.pr.installationId === null) return 'skipped';
  const { review, pr } = run;
  const installationId = pr.installationId!;
  const installation = await deps.installations.find(installationId);
  if (!installationCovers(installation, { id: pr.repositoryId === null ? null : Number(pr.repositoryId), fullName: pr.repositoryName })) {
    deps.log.info({ pullRequestId, installationId }, 'the App no longer has access to this repository: nothing is posted');
    return 'skipped';
  }
  if (phase === 'started' ? review.status !== 'pending' : review.status === 'pending') return 'skipped';

  const publication = await deps.publications.find(pr.id);
  const context: PublishContext = { deps, pr, review, publication, detailsUrl: reviewPageUrl(deps.publicUrl, pr) };
  try {
    await deps.app.asInstallation(installationId, async (api) => {
      const github = new AppPullRequest(api, pr.repositoryName, pr.prNumber);
      if (phase === 'started') await startCheck(context, github);
      else if (review.status === 'failed') await publishFailure(context, github);
      else await publishCompleted(context, github);
    });
  } catch (error) {
    throw jobFailure(error);
  }
  return phase === 'started' ? 'check-started' : 'published';
}

interface PublishContext {
  deps: PublishDeps;
  pr: PullRequest;
  review: Review;
  publication: GitHubPublication | undefined;
  detailsUrl: string;
}

const reviewedSha = (context: PublishContext) => context.review.headSha ?? context.pr.headSha;

async function startCheck(context: PublishContext, github: AppPullRequest): Promise<void> {
  const sha = reviewedSha(context);
  const check = await upsertCheckRun(context, github, sha, {
    status: 'in_progress',
    detailsUrl: context.detailsUrl,
    output: { title: 'Reviewing', summary: `The AI review of ${sha.slice(0, 12)} is running (${context.review.mode} mode).` },
  });
  await context.deps.publications.save(context.pr.id, context.review.runId, { state: 'pending', reason: null, ...checkColumns(check, sha) });
}

async function publishFailure(context: PublishContext, github: AppPullRequest): Promise<void> {
  const sha = reviewedSha(context);
  const reason = context.review.failureReason ?? 'unknown reason';
  const check = await upsertCheckRun(context, github, sha, {
    status: 'completed',
    conclusion: 'neutral',
    detailsUrl: context.detailsUrl,
    output: { title: 'Review failed', summary: `The AI review of ${sha.slice(0, 12)} failed: ${reason}` },
  });
  await context.deps.publications.save(context.pr.id, context.review.runId, { state: 'published', reason: null, headSha: sha, ...checkColumns(check, sha) });
}

async function publishCompleted(context: PublishContext, github: AppPullRequest): Promise<void> {
  const { deps, pr } = context;
  const stored = readStoredReview(context.review.reviewRawJson);
  const sha = stored.reviewedCommit ?? context.review.reviewdSha ?? reviewedSha(context);
  const bot = deps.app.botLogin;

  // What the App already posted inline, by finding: read back from GitHub, the only truth a retry can trust.
  const threads = (await github.reviewComments()).filter((comment) => comment.author === bot && comment.inReplyToId === null);
  const postedByFinding = new Map<string, PostedComment>();
  for (const comment of threads) {
    const findingId = findingIdOf(comment.body);
    if (findingId !== undefined && !postedByFinding.has(findingId)) postedByFinding.set(findingId, comment);
  }
  // A crash between posting and recording leaves comments unrecorded: record what GitHub shows.
  await deps.publications.recordPosted([...postedByFinding].map(([findingId, comment]) => posted(pr, findingId, comment, sha)));

  const fresh = stored.findings.filter((finding) => !postedByFinding.has(finding.id));
  const { inline, heldBack } = selectInline(fresh, stored.inlineMinSeverity);
  let reviewUrl = context.publication?.reviewUrl ?? null;
  if (inline.length > 0) {
    const outcome = await postReview(github, sha, inline);
    heldBack.push(...outcome.refused.map((finding) => ({ finding, reason: 'GitHub could not place it on the diff' })));
    if (outcome.review !== null) {
      reviewUrl = outcome.review.htmlUrl;
      const comments = await github.reviewCommentsOf(outcome.review.id);
      await deps.publications.recordPosted(comments.flatMap((comment) => {
        const findingId = findingIdOf(comment.body);
        return findingId === undefined ? [] : [posted(pr, findingId, comment, sha)];
      }));
    }
  }

  const open = new Set(stored.findings.map((finding) => finding.id));
  const gone = (await deps.publications.postedFindings(pr.id)).filter((row) => row.resolvedAt === null && !open.has(row.findingId));
  if (gone.length > 0) await resolveGone(deps, github, pr, gone, sha);

  const summary = await upsertSummary(github, bot, summaryCommentBody({ review: stored, heldBack: sortHeldBack(heldBack), reviewableFiles: context.review.coverage?.reviewableFiles ?? null, sha, reviewUrl: context.detailsUrl }));
  const check = await upsertCheckRun(context, github, sha, { status: 'completed', conclusion: blocking(stored) > 0 ? 'neutral' : 'success', detailsUrl: context.detailsUrl, output: checkOutput(stored) });
  await deps.publications.save(pr.id, context.review.runId, {
    state: 'published',
    reason: null,
    headSha: sha,
    reviewUrl,
    summaryCommentId: summary.id,
    summaryCommentUrl: summary.htmlUrl,
    ...checkColumns(check, sha),
  });
}

const posted = (pr: PullRequest, findingId: string, comment: PostedComment, sha: string) => ({
  pullRequestId: pr.id,
  findingId,
  commentId: comment.id,
  commentUrl: comment.htmlUrl,
  commitSha: sha,
});

const toInline = (finding: PublishableFinding): InlineComment => ({
  path: finding.file,
  line: finding.endLine,
  ...(finding.endLine > finding.line ? { startLine: finding.line } : {}),
  body: inlineCommentBody(finding),
});

/**
 * One review with the inline comments. GitHub refuses a whole review (422) when one comment's line
 * is not on the diff; each comment is then tried alone as a pending review (deleted at once), and
 * the review is posted with those GitHub accepts. The refused ones go to the summary.
 */
async function postReview(github: AppPullRequest, sha: string, findings: PublishableFinding[]): Promise<{ review: { id: number; htmlUrl: string } | null; refused: PublishableFinding[] }> {
  try {
    return { review: await github.createReview(sha, reviewBody(findings.length, sha), findings.map(toInline)), refused: [] };
  } catch (error) {
    if (statusOf(error) !== 422) throw error;
  }
  const accepted: PublishableFinding[] = [];
  const refused: PublishableFinding[] = [];
  for (const finding of findings) {
    try {
      const probe = await github.createReview(sha, '', [toInline(finding)], { pending: true });
      await github.deletePendingReview(probe.id);
      accepted.push(finding);
    } catch (error) {
      if (statusOf(error) !== 422) throw error;
      refused.push(finding);
    }
  }
  if (accepted.length === 0) return { review: null, refused };
  return { review: await github.createReview(sha, reviewBody(accepted.length, sha), accepted.map(toInline)), refused };
}

/**
 * The App's threads whose finding is gone from the latest review are resolved; where GitHub refuses
 * (no permission, a thread already gone), the thread gets a reply saying where it was addressed.
 */
async function resolveGone(deps: PublishDeps, github: AppPullRequest, pr: PullRequest, gone: Array<{ findingId: string; commentId: number }>, sha: string): Promise<void> {
  const threads = await github.reviewThreads();
  for (const { findingId, commentId } of gone) {
    const thread = threads.find((candidate) => candidate.comments[0]?.databaseId === commentId);
    const answered = thread?.comments.some((comment) => addressedIdOf(comment.body) === findingId) ?? false;
    if (thread !== undefined && !thread.isResolved && !answered) {
      try {
        await github.resolveThread(thread.id);
      } catch (error) {
        if (toGitHubError(error) instanceof GitHubApiError && (toGitHubError(error) as GitHubApiError).retryAfterMs !== undefined) throw error;
        deps.log.info({ err: error, pullRequestId: pr.id, findingId }, 'could not resolve the thread; replying instead');
        await github.replyToComment(commentId, addressedReplyBody(findingId, sha));
      }
    }
    await deps.publications.markResolved(pr.id, [findingId]);
  }
}

/** The one summary comment: found by its marker among the App's comments, edited in place, created only when none exists. */
async function upsertSummary(github: AppPullRequest, bot: string, body: string): Promise<PostedComment> {
  const existing = (await github.issueComments()).find((comment) => comment.author === bot && isSummary(comment.body));
  if (existing === undefined) return github.createIssueComment(body);
  if (existing.body === body) return existing;
  return github.updateIssueComment(existing.id, body);
}

/** The check run of a commit: the one recorded or found on GitHub is updated, else one is created. */
async function upsertCheckRun(context: PublishContext, github: AppPullRequest, sha: string, fields: Parameters<AppPullRequest['createCheckRun']>[1]): Promise<CheckRunRef> {
  const recorded = context.publication?.checkRunSha === sha ? context.publication.checkRunId : null;
  const id = recorded ?? (await github.checkRuns(sha, context.deps.app.id))[0]?.id ?? null;
  return id === null ? github.createCheckRun(sha, fields) : github.updateCheckRun(id, fields);
}

const checkColumns = (check: CheckRunRef, sha: string) => ({ checkRunId: check.id, checkRunSha: sha, checkRunUrl: check.htmlUrl || null });

const blocking = (review: PublishableReview) => review.findings.filter((finding) => finding.severity === 'CRITICAL' || finding.severity === 'MAJOR').length;

function checkOutput(review: PublishableReview): CheckRunOutput {
  const count = blocking(review);
  const title = count === 0 ? (review.findings.length === 0 ? 'No findings' : 'No critical or major findings') : `${count} critical or major finding${count === 1 ? '' : 's'}`;
  return { title, summary: [review.overview, `${review.findings.length} finding${review.findings.length === 1 ? '' : 's'} in all; details in the pull request.`].filter(Boolean).join('\n\n') };
}

function sortHeldBack(heldBack: HeldBack[]): HeldBack[] {
  return [...heldBack].sort((a, b) => a.finding.file.localeCompare(b.finding.file) || a.finding.line - b.finding.line);
}

function statusOf(error: unknown): number | undefined {
  const converted = toGitHubError(error);
  return converted instanceof GitHubApiError ? converted.status : undefined;
}

/**
 * How a failed attempt goes back to the queue: a rate limit waits as long as GitHub asked; GitHub
 * refusing the App (401, 403, 404, 410, 422) will not change by retrying; the rest is retried.
 */
export function jobFailure(error: unknown): Error {
  const converted = toGitHubError(error);
  if (converted instanceof GitHubApiError) {
    if (converted.retryAfterMs !== undefined) return new RetryLaterError(`GitHub rate limit (${converted.status}): ${converted.message}`, converted.retryAfterMs);
    if ([401, 403, 404, 410, 422].includes(converted.status)) return new UnrecoverableJobError(`GitHub refused the App (${converted.status} ${converted.message})`);
    return new Error(`GitHub answered ${converted.status}: ${converted.message}`);
  }
  if (converted instanceof AppError) return new Error(converted.message);
  return converted;
}
