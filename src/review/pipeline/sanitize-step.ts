import type { Job, JobQueue } from '../../adapters/queue/job-queue.js';
import type { PullRequestRepository } from '../../repositories/pull-request-repository.js';
import type { ReviewRepository } from '../../repositories/review-repository.js';
import type { WebhookDeliveryRepository } from '../../repositories/webhook-delivery-repository.js';

export interface SanitizeDeps {
  deliveries: WebhookDeliveryRepository;
  pullRequests: PullRequestRepository;
  reviews: ReviewRepository;
  queue: JobQueue;
}

/**
 * `unprocessedWebhookPayload`: checks that the stored delivery still stands for the current run of
 * its pull request (a later push or a manual run supersedes it), that the pull request can still be
 * reviewed, and hands the run on. The payload itself was validated when it arrived.
 */
export async function sanitizeDelivery(deps: SanitizeDeps, job: Job<'unprocessedWebhookPayload'>): Promise<void> {
  const run = await currentRunOfDelivery(deps, job.payload.deliveryId);
  if (run === undefined) return;
  const { pr, review } = run;
  if (pr.state !== 'open' || pr.draft) {
    await deps.reviews.fail(pr.id, review.runId, `The pull request became ${pr.draft ? 'a draft' : pr.state} before it was reviewed`, job.attempt);
    return;
  }
  if (!(await deps.reviews.advance(pr.id, review.runId, 'PAYLOAD_SANITIZED', job.attempt))) return;
  await deps.queue.add('sanitizedPrPayload', { pullRequestId: pr.id, runId: review.runId }, { jobId: `run-${review.runId}` });
}

/** The run a delivery started, if it is still the pull request's current, pending run. */
export async function currentRunOfDelivery(deps: Pick<SanitizeDeps, 'deliveries' | 'pullRequests' | 'reviews'>, deliveryId: string) {
  const delivery = await deps.deliveries.find(deliveryId);
  if (delivery === undefined || !delivery.startsReview) return undefined;
  const pr = await deps.pullRequests.findByPrId(delivery.prId);
  const review = pr === undefined ? undefined : await deps.reviews.find(pr.id);
  if (pr === undefined || review === undefined || review.status !== 'pending' || review.headSha !== delivery.headSha) return undefined;
  return { pr, review };
}
