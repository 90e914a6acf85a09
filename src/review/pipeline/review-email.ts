import type { MailMessage } from '../../adapters/mail/mailer.js';
import type { CompletedReview } from '../../domain/review-content.js';

export function reviewCompletedEmail(review: CompletedReview): MailMessage {
  const { counts } = review;
  const findings =
    counts.total === 0
      ? 'No findings.'
      : `${counts.total} finding${counts.total === 1 ? '' : 's'}: ${counts.critical} critical, ${counts.warning} warning${counts.warning === 1 ? '' : 's'}, ${counts.suggestion} suggestion${counts.suggestion === 1 ? '' : 's'}.`;
  return {
    to: review.to,
    subject: `Review ready: ${review.repository}#${review.prNumber} ${review.prTitle}`.slice(0, 200),
    text: [
      `Hello ${review.name},`,
      '',
      `The review of "${review.prTitle}" (${review.repository}#${review.prNumber}) is ready.`,
      '',
      `Score: ${review.score}`,
      findings,
      '',
      `Review: ${review.reviewUrl}`,
      ...(review.prHtmlUrl ? [`Pull request: ${review.prHtmlUrl}`] : []),
      '',
      'You get this email because review notifications are on; turn them off with PATCH /users {"emailNotification": false}.',
    ].join('\n'),
  };
}
