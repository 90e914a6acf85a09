import type { JobQueue, PublicationRequest } from '../adapters/queue/job-queue.js';
import type { CodeHosts } from '../code-hosts/code-hosts.js';
import type { PullRequest, Review } from '../db/schema/index.js';
import type { Logger } from '../lib/logger.js';
import type { PublicationRepository } from '../repositories/publication-repository.js';

export interface PublicationView {
  state: 'not_applicable' | 'pending' | 'published' | 'failed';
  reason: string | null;
  reviewUrl: string | null;
  summaryCommentUrl: string | null;
  checkRunUrl: string | null;
}

export interface PublicationServiceDeps {
  queue: JobQueue;
  publications: PublicationRepository;
  /** Each change's host: whether and where its runs are published. */
  hosts: () => Pick<CodeHosts, 'of'>;
  log: Logger;
}

const NONE = { reviewUrl: null, summaryCommentUrl: null, checkRunUrl: null };

/** When a review run is published on its code host, and what its publication looks like from the API. */
export class PublicationService {
  constructor(private readonly deps: PublicationServiceDeps) {}

  /**
   * Queues the run's publication when its host publishes it (GitHub: through an installation):
   * `started` puts the status in progress, `finished` posts the outcome. A failure to queue is logged: the
   * review itself is not affected. The caller passes the row it holds: a review that is not
   * published (most of them, without the App) then costs no statement at all.
   */
  async enqueue(pr: Pick<PullRequest, 'id' | 'provider' | 'installationId'>, runId: string, phase: PublicationRequest['phase']): Promise<void> {
    if (this.deps.hosts().of(pr).unpublishedReason(pr as PullRequest) !== null) return;
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
    const host = this.deps.hosts().of(pr);
    const unpublished = host.unpublishedReason(pr);
    if (unpublished !== null) return { state: 'not_applicable', reason: unpublished, ...NONE };
    const [publication, block] = await Promise.all([this.deps.publications.find(pr.id), host.publicationBlock(pr)]);
    const urls = { reviewUrl: publication?.reviewUrl ?? null, summaryCommentUrl: publication?.summaryCommentUrl ?? null, checkRunUrl: publication?.statusUrl ?? null };
    if (block !== undefined) return { ...block, ...urls };
    if (review === null || review.status === 'pending' || publication === undefined || publication.runId !== review.runId) return { state: 'pending', reason: null, ...urls };
    return { state: publication.state, reason: publication.reason, ...urls };
  }
}
