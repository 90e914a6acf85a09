import type { z } from 'zod';
import type { JobQueue } from '../adapters/queue/job-queue.js';
import type { PullRequest, ReviewMode } from '../db/schema/index.js';
import { AppError } from '../lib/app-error.js';
import { apiPrId, type PullRequestSelector } from '../lib/ids.js';
import type { Logger } from '../lib/logger.js';
import type { FindingFeedbackRepository } from '../repositories/finding-feedback-repository.js';
import type { PublicationService } from '../publishing/publication-service.js';
import type { ReviewRepository } from '../repositories/review-repository.js';
import { countBySeverity, scoreReview } from '../review/findings/score.js';
import type { ReviewContextSummary } from '../domain/review-content.js';
import type { informationItem, listItem } from '../routes/review/review-schemas.js';

export const DASHBOARD_SIZE = 3;

/** What the information endpoint reads of the raw review JSON. */
interface RawReview {
  comments?: Array<{ id?: string }>;
  skippedFiles?: Array<{ path: string; reason: string }>;
  configProblems?: Array<{ line: number; message: string }>;
  context?: ReviewContextSummary;
}

export class ReviewService {
  constructor(
    private readonly deps: {
      reviews: ReviewRepository;
      feedback: FindingFeedbackRepository;
      queue: JobQueue;
      publishing: PublicationService;
      log: Logger;
    },
  ) {}

  async information(userId: string, selector: PullRequestSelector): Promise<Array<z.input<typeof informationItem>>> {
    const found = await this.deps.reviews.findWithPullRequest(userId, selector);
    if (found === undefined) throw new AppError('NOT_FOUND', 'No such pull request');
    const { pr, review } = found;
    const raw = (review?.reviewRawJson as RawReview | null | undefined) ?? null;
    const verdicts = raw?.comments?.length ? await this.deps.feedback.verdictsOf(pr.id) : new Map<string, string>();
    return [
      {
        id: pr.id,
        prId: apiPrId(pr),
        provider: pr.provider,
        url: pr.htmlUrl,
        reviewStatus: review?.status ?? pr.reviewStatus,
        reviewSummary: review?.reviewSummary ?? null,
        reviewdSha: review?.reviewdSha ?? null,
        reviewStartedAt: review?.startedAt.toISOString() ?? null,
        reviewCompletedAt: review?.completedAt?.toISOString() ?? null,
        // Each finding shows the team's verdict on it (decisions.md §10), null when there is none.
        reviewRawJSON: raw?.comments === undefined ? raw : { ...raw, comments: raw.comments.map((comment) => ({ ...comment, verdict: verdicts.get(comment.id ?? '') ?? null })) },
        prTitle: pr.title,
        prState: pr.state,
        prIsDraft: pr.draft,
        prIsMerged: pr.merged,
        prHeadBranch: pr.headBranch,
        prBaseBranch: pr.baseBranch,
        prCommitCount: pr.commitsCount,
        prAddtions: pr.additions,
        prDeletions: pr.deletions,
        changedFiles: pr.changedFiles,
        prHtmlUrl: pr.htmlUrl,
        state: review?.state ?? null,
        failureReason: review?.failureReason ?? null,
        mode: review?.mode ?? null,
        coverage: review?.coverage ?? null,
        attemptNumber: review?.attemptNumber ?? null,
        duration: review?.duration ?? null,
        triggeredBy: review?.triggedBy ?? null,
        skippedFiles: raw?.skippedFiles ?? [],
        configProblems: raw?.configProblems ?? [],
        // What the latest run's prompts held besides the diff (decisions.md §11); null before a run completes.
        context: raw?.context ?? null,
        publication: await this.deps.publishing.view(pr, review),
      },
    ];
  }

  async dashboard(userId: string): Promise<Array<z.input<typeof listItem>>> {
    const rows = await this.deps.reviews.recentForUser(userId, DASHBOARD_SIZE);
    return rows.map((review) => {
      const raw = review.scorable ?? {};
      const counts = countBySeverity(raw.comments);
      return {
        id: review.id,
        prId: review.prId,
        provider: review.provider,
        url: review.url,
        pullRequestId: review.pullRequestId,
        prDbId: review.pullRequestId,
        prNumber: review.prNumber,
        prTitle: review.title,
        repoFullName: review.repositoryName,
        status: review.status,
        score: scoreReview(raw),
        summary: review.reviewSummary,
        criticalCount: counts.critical,
        warningCount: counts.warning,
        suggestionCount: counts.suggestion,
        totalFindings: counts.total,
        reviewedAt: review.completedAt,
      };
    });
  }

  /**
   * A manual re-review by the signed-in caller: a new run of the stored pull request. Without a
   * mode, the repository's `.ai-review.yml` names it, else `focused` (decisions.md §10). Only a
   * member sees an organization's pull request, so the run's usage is the caller's (decisions.md §15).
   */
  async start(userId: string, selector: PullRequestSelector, mode?: ReviewMode): Promise<void> {
    const found = await this.deps.reviews.findWithPullRequest(userId, selector);
    if (found === undefined) throw new AppError('NOT_FOUND', 'No such pull request, or no stored webhook payload to review');
    await this.run(found.pr, { userId, mode, memberId: userId });
  }

  /**
   * A new run of a stored pull request, straight into `sanitizedPrPayload`: the caller's re-run, or
   * a command's (found by the host, whoever its user is). `userId` is the review row's user (the
   * pull request's unless given); `headSha` names the commit when it is not the pull request's head
   * (a re-requested check run); `memberId` is who triggered it, carried by the job (`runMember`).
   */
  async run(pr: PullRequest, { userId = pr.userId, mode, headSha = pr.headSha, memberId }: { userId?: string; mode?: ReviewMode; headSha?: string; memberId: string | null }): Promise<void> {
    if (pr.bodyBlob === null) throw new AppError('NOT_FOUND', 'No such pull request, or no stored webhook payload to review');
    const runId = await this.deps.reviews.startManual({ pullRequestId: pr.id, prId: pr.prId, userId, headSha, mode });
    try {
      await this.deps.queue.add('sanitizedPrPayload', { pullRequestId: pr.id, runId, memberId }, { jobId: `run-${runId}` });
    } catch (error) {
      this.deps.log.error({ err: error, pullRequestId: pr.id }, 'could not enqueue a manual review');
      // No job will run it: the run must not stay pending for ever.
      await this.deps.reviews.fail(pr.id, runId, 'The review could not be queued', 1);
      throw new AppError('INTERNAL', 'Failed to start the review');
    }
  }
}
