import type { Mailer } from '../../adapters/mail/mailer.js';
import type { Job } from '../../adapters/queue/job-queue.js';
import { apiPrId } from '../../lib/ids.js';
import type { ReviewRepository } from '../../repositories/review-repository.js';
import { countBySeverity, scoreReview } from '../findings/score.js';
import { reviewCompletedEmail } from './review-email.js';

export interface EmailDeps {
  reviews: ReviewRepository;
  mailer: Mailer;
  publicUrl: string;
}

/**
 * `reviewEmail`: tells the owner that a run's review is ready, when their notifications are on. Its
 * own queue, not the review step's tail: building and sending a message (or a slow mail server)
 * never holds one of the few review slots, and a mail server that refuses is retried. A run that a
 * newer one replaced before its email went out is not announced: the newer run's will be.
 */
export async function emailReview(deps: EmailDeps, job: Job<'reviewEmail'>): Promise<void> {
  const { pullRequestId, runId } = job.payload;
  const email = await deps.reviews.runEmail(pullRequestId, runId);
  if (email === undefined) return;
  const { pr, scorable, ...message } = email;
  const output = scorable ?? {};
  await deps.mailer.send(reviewCompletedEmail({ ...message, score: scoreReview(output), counts: countBySeverity(output.comments), reviewUrl: `${deps.publicUrl}/pulls/${apiPrId(pr)}` }));
}
