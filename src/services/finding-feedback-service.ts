import type { FindingVerdict, PullRequest, RepositoryLearning, Review } from '../db/schema/index.js';
import { pullRequestOwner, type Owner } from '../domain/owners.js';
import { AppError } from '../lib/app-error.js';
import type { PullRequestSelector } from '../lib/ids.js';
import type { FindingFeedbackRepository } from '../repositories/finding-feedback-repository.js';
import type { ReviewRepository } from '../repositories/review-repository.js';

/** Learnings listed at most (and the newest of them added to a review's prompt: `PROMPT_LEARNINGS`). */
const LISTED_LEARNINGS = 200;
/** decisions.md §10: the newest learnings of a repository that reach its reviews' prompts. */
export const PROMPT_LEARNINGS = 20;

export interface VerdictRequest {
  userId: string;
  /** The pull request, by GitHub's id or the internal id. */
  pullRequest: PullRequestSelector;
  findingId: string;
  verdict: FindingVerdict;
  note?: string | null;
}

/** A verdict on a finding of a pull request already found. */
export type HostVerdict = Omit<VerdictRequest, 'userId' | 'pullRequest'>;

interface StoredFinding {
  id?: string;
  file: string;
  title: string;
  comment?: string;
}

/**
 * The rules of feedback on findings (decisions.md §10), for the API and the GitHub App's
 * `/wrong`, `/wontfix` and `/helpful` replies alike: a verdict on a finding of a pull request the
 * user may see; `wrong` and `wontfix` keep it from coming back in that repository; the note of a
 * `wrong` one is a learning added to the repository's later reviews. Both are the pull request's
 * owner's (decisions.md §15): an organization's pull request teaches the organization's reviews,
 * whichever member gave the verdict, and never a personal space's.
 */
export class FindingFeedbackService {
  constructor(private readonly deps: { reviews: ReviewRepository; feedback: FindingFeedbackRepository }) {}

  /** 404 when the user may not see the pull request, or its current review holds no such finding. */
  async setVerdict(request: VerdictRequest): Promise<void> {
    const found = await this.deps.reviews.findWithPullRequest(request.userId, request.pullRequest);
    if (found === undefined) throw new AppError('NOT_FOUND', 'No such pull request');
    await this.record(found.pr, found.review, request);
  }

  /**
   * A verdict replied on the code host (`/wrong` in a finding's thread): the host vouched for its
   * author's write access and named the pull request, so no account is asked to see it (an
   * organization's pull request may be stored under an author who is not a member). 404 as above
   * when its current review holds no such finding.
   */
  async setVerdictByReply(pr: PullRequest, verdict: HostVerdict): Promise<void> {
    await this.record(pr, (await this.deps.reviews.reviewOf(pr.id)) ?? null, verdict);
  }

  private async record(pr: PullRequest, review: Review | null, request: HostVerdict): Promise<void> {
    const comments = (review?.reviewRawJson as { comments?: StoredFinding[] } | null | undefined)?.comments ?? [];
    const finding = comments.find((comment) => comment.id === request.findingId);
    if (finding === undefined) throw new AppError('NOT_FOUND', 'No such finding in this pull request’s review');
    const note = request.note?.trim() ? request.note.trim() : null;
    await this.deps.feedback.setVerdict({
      owner: pullRequestOwner(pr),
      pullRequestId: pr.id,
      repositoryName: pr.repositoryName,
      findingId: request.findingId,
      verdict: request.verdict,
      note,
      file: finding.file,
      title: finding.title,
      comment: finding.comment ?? '',
    });
  }

  /** The learnings of a space (a user's own, or an organization's: `GET /orgs/:orgId/review/learnings`). */
  learnings(owner: Owner, repositoryName: string | undefined): Promise<RepositoryLearning[]> {
    return this.deps.feedback.learnings(owner, repositoryName, LISTED_LEARNINGS);
  }

  /** 404 for a learning of another space. */
  async deleteLearning(owner: Owner, id: string): Promise<void> {
    if (!(await this.deps.feedback.deleteLearning(owner, id))) throw new AppError('NOT_FOUND', 'No such learning');
  }
}
