import { verify } from '@octokit/webhooks-methods';
import type { JobQueue } from '../../adapters/queue/job-queue.js';
import type { Database } from '../../db/database.js';
import { AppError } from '../../lib/app-error.js';
import { sha256Hex } from '../../lib/crypto/tokens.js';
import type { Logger } from '../../lib/logger.js';
import type { PullRequestRepository } from '../../repositories/pull-request-repository.js';
import type { RepositoryLinkRepository } from '../../repositories/repository-link-repository.js';
import type { ReviewRepository } from '../../repositories/review-repository.js';
import type { UserRepository } from '../../repositories/user-repository.js';
import type { WebhookDeliveryRepository } from '../../repositories/webhook-delivery-repository.js';
import type { SessionInfo } from '../../services/session-service.js';
import { zodDetails } from '../../lib/zod-details.js';
import { pullRequestEventSchema, type PullRequestEvent } from './webhook-schemas.js';

/** decisions.md §6: the actions that start a review (on a non-draft, open pull request). */
export const REVIEW_ACTIONS = new Set(['opened', 'reopened', 'synchronize', 'ready_for_review']);

export interface IncomingDelivery {
  event: string | undefined;
  deliveryId: string | undefined;
  signature: string | undefined;
  rawBody: Buffer;
  payload: unknown;
  session: SessionInfo | null;
}

export type DeliveryOutcome = 'ping' | 'duplicate' | 'stored' | 'review-started';

export interface WebhookServiceDeps {
  db: Database;
  users: UserRepository;
  pullRequests: PullRequestRepository;
  repositoryLinks: RepositoryLinkRepository;
  deliveries: WebhookDeliveryRepository;
  reviews: ReviewRepository;
  queue: JobQueue;
  webhookSecret: string | undefined;
  log: Logger;
}

/**
 * The intake. A delivery is stored (delivery, pull request, repository link, review start) in one
 * transaction before the caller answers 200; the job is enqueued after the commit, and if the queue
 * is down the relay (`dispatchPending`) enqueues it later. Nothing accepted is lost.
 */
export class WebhookService {
  constructor(private readonly deps: WebhookServiceDeps) {}

  async receive(delivery: IncomingDelivery): Promise<DeliveryOutcome> {
    const basis = await this.authenticate(delivery);
    const event = delivery.event?.trim();
    if (event === 'ping') return 'ping';
    if (event !== 'pull_request') {
      throw new AppError('UNPROCESSABLE_ENTITY', event ? `Unsupported event "${event}": only pull_request is processed` : 'Missing x-github-event header');
    }

    const parsed = pullRequestEventSchema.safeParse(delivery.payload);
    if (!parsed.success) throw new AppError('BAD_REQUEST', 'Invalid pull_request payload', zodDetails(parsed.error, 'body'));
    const payload = parsed.data;

    const authorId = payload.pull_request.user.id;
    if (basis === 'session' && (await this.deps.users.findById(delivery.session!.userId))?.codehostUserId !== authorId) {
      throw new AppError('FORBIDDEN', 'An unsigned delivery may only carry your own pull requests');
    }
    const owner = await this.deps.users.findByCodehostId(authorId);
    // The API document's answer when nobody registered is the author.
    if (owner === undefined) throw new AppError('INTERNAL', 'Failed to process webhook payload');

    const deliveryId = delivery.deliveryId ?? `sha256-${sha256Hex(delivery.rawBody.toString('utf8'))}`;
    const outcome = await this.store(deliveryId, owner.id, payload);
    if (outcome === 'review-started') await this.dispatch([deliveryId]);
    return outcome;
  }

  /** The relay: enqueues deliveries stored while the queue was unreachable. Returns how many. */
  async dispatchPending(olderThanMs = 2_000, limit = 100): Promise<number> {
    const pending = await this.deps.deliveries.listUnqueued(new Date(Date.now() - olderThanMs), limit);
    return this.dispatch(pending.map((row) => row.deliveryId));
  }

  private async authenticate(delivery: IncomingDelivery): Promise<'signature' | 'session' | 'unsigned'> {
    const secret = this.deps.webhookSecret;
    if (secret !== undefined && delivery.signature !== undefined) {
      const valid = delivery.rawBody.length > 0 && (await verify(secret, delivery.rawBody.toString('utf8'), delivery.signature));
      if (!valid) throw new AppError('UNAUTHORIZED', 'Invalid x-hub-signature-256');
      return 'signature';
    }
    if (delivery.session !== null) return 'session';
    if (secret !== undefined) throw new AppError('UNAUTHORIZED', 'Missing x-hub-signature-256');
    return 'unsigned';
  }

  private store(deliveryId: string, userId: string, payload: PullRequestEvent): Promise<Exclude<DeliveryOutcome, 'ping'>> {
    const pr = payload.pull_request;
    return this.deps.db.transaction(async (tx) => {
      const fresh = await this.deps.deliveries.insert(
        { deliveryId, event: 'pull_request', action: payload.action, userId, prId: pr.id, headSha: pr.head.sha, startsReview: false },
        tx,
      );
      if (!fresh) return 'duplicate';

      const { id, current } = await this.deps.pullRequests.upsertFromWebhook(
        {
          userId,
          prId: pr.id,
          repositoryId: String(payload.repository.id),
          repositoryName: payload.repository.full_name,
          prNumber: pr.number,
          title: pr.title,
          state: pr.state,
          htmlUrl: pr.html_url ?? null,
          diff: pr.diff_url ?? '0',
          draft: pr.draft ?? false,
          merged: pr.merged ?? false,
          headBranch: pr.head.ref,
          baseBranch: pr.base.ref,
          baseSha: pr.base.sha,
          headSha: pr.head.sha,
          mergeCommitSha: pr.merge_commit_sha ?? null,
          commitsCount: pr.commits ?? null,
          additions: pr.additions ?? null,
          deletions: pr.deletions ?? null,
          changedFiles: pr.changed_files ?? null,
          bodyBlob: payload,
          createdAt: new Date(pr.created_at),
          updatedAt: new Date(pr.updated_at),
        },
        tx,
      );
      await this.deps.repositoryLinks.upsert(
        {
          userId,
          repositoryId: payload.repository.id,
          fullName: payload.repository.full_name,
          htmlUrl: payload.repository.html_url ?? null,
          private: payload.repository.private ?? false,
        },
        tx,
      );

      // A stale delivery (older than what is stored) updates nothing and reviews nothing.
      const reviewable = current && REVIEW_ACTIONS.has(payload.action) && !(pr.draft ?? false) && pr.state === 'open';
      if (!reviewable) return 'stored';
      const started = await this.deps.reviews.start(
        { pullRequestId: id, prId: pr.id, userId, headSha: pr.head.sha, mode: 'focused', trigger: 'webhook' },
        { executor: tx },
      );
      if (!started) return 'stored';
      await this.deps.pullRequests.setReviewStatus(id, 'pending', tx);
      await this.deps.deliveries.markStartsReview(deliveryId, tx);
      return 'review-started';
    });
  }

  /** Enqueues each delivery (the job id is the delivery id, so a repeat is ignored) and marks it. */
  private async dispatch(deliveryIds: string[]): Promise<number> {
    const enqueued: string[] = [];
    for (const deliveryId of deliveryIds) {
      try {
        await this.deps.queue.add('unprocessedWebhookPayload', { deliveryId }, { jobId: deliveryId });
        enqueued.push(deliveryId);
      } catch (error) {
        this.deps.log.warn({ err: error, deliveryId }, 'queue unavailable: the delivery is stored and will be enqueued by the relay');
        break;
      }
    }
    await this.deps.deliveries.markEnqueued(enqueued).catch((error: unknown) => this.deps.log.warn({ err: error }, 'could not mark deliveries enqueued'));
    return enqueued.length;
  }
}
