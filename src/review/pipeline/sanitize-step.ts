import type { Job, JobQueue } from '../../adapters/queue/job-queue.js';
import type { ReviewRepository } from '../../repositories/review-repository.js';

export interface SanitizeDeps {
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
  // A draft goes on: whether drafts are reviewed is the repository's `.ai-review.yml`'s to say (extract step).
  if (pr.state !== 'open') {
    await deps.reviews.fail(pr.id, review.runId, `The pull request became ${pr.state} before it was reviewed`, job.attempt);
    return;
  }
  if (!(await deps.reviews.advance(pr.id, review.runId, 'PAYLOAD_SANITIZED', job.attempt, { relaxed: true }))) return;
  await deps.queue.add('sanitizedPrPayload', { pullRequestId: pr.id, runId: review.runId }, { jobId: `run-${review.runId}` });
}

/** The run a delivery started, if it is still the pull request's current, pending run. */
export async function currentRunOfDelivery(deps: Pick<SanitizeDeps, 'reviews'>, deliveryId: string) {
  const run = await deps.reviews.runOfDelivery(deliveryId);
  if (run === undefined || run.review.status !== 'pending' || run.review.headSha !== run.headSha) return undefined;
  return run;
}
