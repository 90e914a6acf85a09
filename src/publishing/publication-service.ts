import type { GitHubApp } from '../adapters/github/github-app.js';
import type { JobQueue, PublicationRequest } from '../adapters/queue/job-queue.js';
import type { GitLabConnection, PullRequest, Review } from '../db/schema/index.js';
import type { Logger } from '../lib/logger.js';
import { installationCovers, type GitHubInstallationRepository } from '../repositories/github-installation-repository.js';
import type { PublicationRepository } from '../repositories/publication-repository.js';

export interface PublicationView {
  state: 'not_applicable' | 'pending' | 'published' | 'failed';
  reason: string | null;
  reviewUrl: string | null;
  summaryCommentUrl: string | null;
  checkRunUrl: string | null;
}

export interface PublicationServiceDeps {
  app: GitHubApp | undefined;
  queue: JobQueue;
  publications: PublicationRepository;
  installations: GitHubInstallationRepository;
  /** The connection a merge request's record came through (decisions.md §12). */
  gitlabConnectionOf: (prId: number) => Promise<GitLabConnection | undefined>;
  log: Logger;
}

const NONE = { reviewUrl: null, summaryCommentUrl: null, checkRunUrl: null };

/** When a review run is published through the App, and what its publication looks like from the API. */
export class PublicationService {
  constructor(private readonly deps: PublicationServiceDeps) {}

  /**
   * Queues the run's publication when its pull request came through an installation: `started` puts
   * the check run in progress, `finished` posts the outcome. A failure to queue is logged: the
   * review itself is not affected. The caller passes the row it holds: a review that is not
   * published (most of them, without the App) then costs no statement at all.
   */
  async enqueue(pr: Pick<PullRequest, 'id' | 'provider' | 'installationId'>, runId: string, phase: PublicationRequest['phase']): Promise<void> {
    // GitHub: only through the App's installation; GitLab: every merge request came through a connection.
    if (pr.provider === 'github' && (this.deps.app === undefined || pr.installationId === null)) return;
    try {
      if (phase === 'finished') await this.deps.publications.save(pr.id, runId, { state: 'pending', reason: null });
      await this.deps.queue.add('completedReview', { pullRequestId: pr.id, runId, phase }, { jobId: `publish-${phase}-${runId}` });
    } catch (error) {
      this.deps.log.error({ err: error, pullRequestId: pr.id, runId }, 'could not queue the publication of a review');
    }
  }

  /** A publication whose retries are spent: failed, with the reason; the review stays as it is. */
  async failed(pullRequestId: string, runId: string, reason: string): Promise<void> {
    await this.deps.publications.finish(pullRequestId, runId, { state: 'failed', reason: reason.slice(0, 2000) });
  }

  /** `publication` of a `GET /review/information` item (decisions.md §8). */
  async view(pr: PullRequest, review: Review | null): Promise<PublicationView> {
    if (pr.provider === 'gitlab') return this.gitlabView(pr, review);
    if (pr.installationId === null || this.deps.app === undefined) return { state: 'not_applicable', reason: 'The pull request did not come through the GitHub App', ...NONE };
    const [publication, installation] = await Promise.all([this.deps.publications.find(pr.id), this.deps.installations.find(pr.installationId)]);
    const urls = { reviewUrl: publication?.reviewUrl ?? null, summaryCommentUrl: publication?.summaryCommentUrl ?? null, checkRunUrl: publication?.statusUrl ?? null };
    if (!installationCovers(installation, { id: pr.repositoryId === null ? null : Number(pr.repositoryId), fullName: pr.repositoryName })) {
      return { state: 'not_applicable', reason: 'The GitHub App was uninstalled, suspended or lost access to this repository', ...urls };
    }
    if (review === null || review.status === 'pending' || publication === undefined || publication.runId !== review.runId) return { state: 'pending', reason: null, ...urls };
    return { state: publication.state, reason: publication.reason, ...urls };
  }

  private async gitlabView(pr: PullRequest, review: Review | null): Promise<PublicationView> {
    const [publication, connection] = await Promise.all([this.deps.publications.find(pr.id), this.deps.gitlabConnectionOf(pr.prId)]);
    const urls = { reviewUrl: publication?.reviewUrl ?? null, summaryCommentUrl: publication?.summaryCommentUrl ?? null, checkRunUrl: publication?.statusUrl ?? null };
    if (connection === undefined) return { state: 'not_applicable', reason: 'The GitLab project was disconnected', ...urls };
    if (connection.status === 'broken') return { state: 'failed', reason: `GitLab refused the connection's token: ${connection.brokenReason ?? 'unknown reason'}`, ...urls };
    if (review === null || review.status === 'pending' || publication === undefined || publication.runId !== review.runId) return { state: 'pending', reason: null, ...urls };
    return { state: publication.state, reason: publication.reason, ...urls };
  }
}
