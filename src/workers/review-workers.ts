import type { FastifyInstance } from 'fastify';
import type { Job, QueueName } from '../adapters/queue/job-queue.js';
import { extractContent } from '../review/pipeline/extract-step.js';
import { reviewContent } from '../review/pipeline/review-step.js';
import { currentRunOfDelivery, sanitizeDelivery } from '../review/pipeline/sanitize-step.js';

export interface ReviewWorkerOptions {
  /** Reviews at once per process: each holds model calls open for a while. */
  reviewConcurrency?: number;
}

/**
 * The review pipeline's consumers: `unprocessedWebhookPayload` → `sanitizedPrPayload` →
 * `extractedPrContent`. A job that fails for good fails its run, with the reason kept.
 */
export function registerReviewWorkers(app: FastifyInstance, options: ReviewWorkerOptions = {}) {
  const { repos, queue, config, metrics } = app;
  const log = app.log.child({ component: 'review' });
  const reason = (error: Error) => error.message || error.name;
  const failRun = async (job: Job<'sanitizedPrPayload' | 'extractedPrContent'>, error: Error) => {
    metrics.jobsFailed.labels(job.name).inc();
    await repos.reviews.fail(job.payload.pullRequestId, job.payload.runId, reason(error), job.attempt);
  };
  const failDelivery = async (job: Job<'unprocessedWebhookPayload'>, error: Error) => {
    metrics.jobsFailed.labels(job.name).inc();
    const run = await currentRunOfDelivery(repos, job.payload.deliveryId);
    if (run !== undefined) await repos.reviews.fail(run.pr.id, run.review.runId, reason(error), job.attempt);
  };
  const traced =
    <N extends QueueName>(handler: (job: Job<N>) => Promise<void>) =>
    async (job: Job<N>) => {
      log.debug({ queue: job.name, jobId: job.id, attempt: job.attempt }, 'job started');
      const started = performance.now();
      let outcome = 'failed';
      try {
        await handler(job);
        outcome = 'completed';
      } finally {
        metrics.jobDuration.labels(job.name, outcome).observe((performance.now() - started) / 1000);
      }
    };

  queue.process('unprocessedWebhookPayload', traced((job) => sanitizeDelivery({ reviews: repos.reviews, queue }, job)), { concurrency: 4, onFailed: failDelivery });
  queue.process(
    'sanitizedPrPayload',
    traced((job) =>
      extractContent({ github: app.github, reviews: repos.reviews, queue, secretBox: app.secretBox, fallbackToken: config.github.token, kv: app.kv }, job),
    ),
    { concurrency: 4, onFailed: failRun },
  );
  queue.process(
    'extractedPrContent',
    traced((job) =>
      reviewContent(
        {
          reviews: repos.reviews,
          models: app.services.models,
          github: app.github,
          mailer: app.mailer,
          secretBox: app.secretBox,
          fallbackToken: config.github.token,
          publicUrl: config.publicUrl,
          log,
          maxFileDiffBytes: config.reviewMaxFileDiffBytes,
          feedback: repos.feedback,
        },
        job,
      ),
    ),
    { concurrency: options.reviewConcurrency ?? 2, onFailed: failRun },
  );
}
