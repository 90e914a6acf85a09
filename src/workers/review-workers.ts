import type { FastifyInstance } from 'fastify';
import type { Job, QueueName } from '../adapters/queue/job-queue.js';
import { runCommand } from '../review/pipeline/command-step.js';
import { publishReview } from '../publishing/publish-step.js';
import { decideDraft } from '../review/pipeline/draft-step.js';
import { emailReview } from '../review/pipeline/email-step.js';
import { extractContent } from '../review/pipeline/extract-step.js';
import { reviewContent } from '../review/pipeline/review-step.js';
import { reviewDiff } from '../review/pipeline/diff-review-step.js';
import { currentRunOfDelivery, sanitizeDelivery } from '../review/pipeline/sanitize-step.js';

export interface ReviewWorkerOptions {
  /** Reviews at once per process: each holds model calls open for a while. */
  reviewConcurrency?: number;
}

/**
 * The review pipeline's consumers: (`undecidedDraft` →) `unprocessedWebhookPayload` → `sanitizedPrPayload` →
 * `extractedPrContent`, then `completedReview` (publishing on the code host), `reviewEmail` and the
 * hosts' `appCommand`. A job that fails for good fails its run, with the reason kept.
 */
export function registerReviewWorkers(app: FastifyInstance, options: ReviewWorkerOptions = {}) {
  const { repos, queue, config, metrics } = app;
  const log = app.log.child({ component: 'review' });
  const reason = (error: Error) => error.message || error.name;
  const { publishing } = app.services;
  // A failed run is published too (a neutral check that says why); publishing never changes the review.
  const failRun = async (job: Job<'sanitizedPrPayload' | 'extractedPrContent'>, error: Error) => {
    metrics.jobsFailed.labels(job.name).inc();
    const { pullRequestId, runId } = job.payload;
    if (!(await repos.reviews.fail(pullRequestId, runId, reason(error), job.attempt))) return;
    const pr = await repos.pullRequests.find(pullRequestId);
    if (pr !== undefined) await publishing.enqueue(pr, runId, 'finished');
  };
  const failDelivery = async (job: Job<'unprocessedWebhookPayload'>, error: Error) => {
    metrics.jobsFailed.labels(job.name).inc();
    const run = await currentRunOfDelivery(repos, job.payload.deliveryId);
    if (run !== undefined && (await repos.reviews.fail(run.pr.id, run.review.runId, reason(error), job.attempt))) await publishing.enqueue(run.pr, run.review.runId, 'finished');
  };
  // The process's one snapshot cache, shared with the chat (decisions.md §11); each change's host reads the code with the diff's credentials.
  const snapshots = app.services.codeSnapshots;
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

  const { codeHosts } = app.services;
  queue.process('unprocessedWebhookPayload', traced((job) => sanitizeDelivery({ reviews: repos.reviews, queue }, job)), { concurrency: 4, onFailed: failDelivery });
  queue.process(
    'undecidedDraft',
    traced((job) => decideDraft({ readers: codeHosts, kv: app.kv, deliveries: repos.deliveries, intake: repos.webhookIntake, queue }, job)),
    { concurrency: 2, onFailed: (job) => void metrics.jobsFailed.labels(job.name).inc() },
  );
  queue.process(
    'sanitizedPrPayload',
    traced((job) =>
      extractContent(
        {
          readers: codeHosts,
          reviews: repos.reviews,
          queue,
          kv: app.kv,
          // The check run goes in progress as the run starts being reviewed (webhook and manual runs alike).
          onReviewStarts: (pr, runId) => publishing.enqueue(pr, runId, 'started'),
          // A failure is remembered by the cache and met again by the review step, which goes on without the code.
          prefetchCode: (reader, commit) => void snapshots.open(reader.snapshotSource(), commit, []).catch(() => undefined),
        },
        job,
      ),
    ),
    { concurrency: 4, onFailed: failRun },
  );
  queue.process(
    'extractedPrContent',
    traced(async (job) => {
      const reviewed = await reviewContent(
        {
          reviews: repos.reviews,
          models: app.services.models,
          readers: codeHosts,
          queue,
          log,
          maxFileDiffBytes: config.reviewMaxFileDiffBytes,
          feedback: repos.feedback,
          snapshots,
        },
        job,
      );
      if (reviewed !== undefined) await publishing.enqueue(reviewed, job.payload.runId, 'finished');
    }),
    { concurrency: options.reviewConcurrency ?? 2, onFailed: failRun },
  );
  queue.process(
    'diffReview',
    traced((job) =>
      reviewDiff({ diffReviews: repos.diffReviews, models: app.services.models, log, maxFileDiffBytes: config.reviewMaxFileDiffBytes, feedback: repos.feedback, scratchDir: config.dataDir }, job),
    ),
    {
      concurrency: options.reviewConcurrency ?? 2,
      onFailed: async (job, error) => {
        metrics.jobsFailed.labels(job.name).inc();
        await repos.diffReviews.fail(job.payload.diffReviewId, reason(error));
      },
    },
  );
  queue.process(
    'reviewEmail',
    traced((job) => emailReview({ reviews: repos.reviews, mailer: app.mailer, publicUrl: config.publicUrl }, job)),
    {
      concurrency: 2,
      onFailed: (job, error) => {
        metrics.jobsFailed.labels(job.name).inc();
        log.warn({ err: error, pullRequestId: job.payload.pullRequestId }, 'could not send the review email');
      },
    },
  );

  const publishLog = app.log.child({ component: 'publishing' });
  queue.process(
    'completedReview',
    traced(async (job) => {
      const deps = { reviews: repos.reviews, publications: repos.publications, hosts: codeHosts, publicUrl: config.publicUrl, log: publishLog, locks: app.kv };
      metrics.publications.inc({ outcome: await publishReview(deps, job) });
    }),
    {
      // Publishing waits on the code host, not on the CPU: more at once keeps a burst of reviews from queueing.
      concurrency: 8,
      onFailed: async (job, error) => {
        metrics.jobsFailed.labels(job.name).inc();
        metrics.publications.inc({ outcome: 'failed' });
        if (job.payload.phase === 'finished') await publishing.failed(job.payload.pullRequestId, job.payload.runId, reason(error));
      },
    },
  );
  queue.process(
    'appCommand',
    traced(async (job) =>
      runCommand(
        {
          target: app.services.commandTarget,
          reviews: app.services.reviews,
          conversations: app.services.conversations,
          members: repos.organizations,
          setVerdict: (pr, verdict) => app.services.feedback.setVerdictByReply(pr, verdict),
          log: publishLog,
        },
        job,
      ),
    ),
    { concurrency: 2, onFailed: (job) => void metrics.jobsFailed.labels(job.name).inc() },
  );
}
