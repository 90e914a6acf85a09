import { RetryLaterError, UnrecoverableJobError } from '../../adapters/queue/job-queue.js';
import { AppError } from '../../lib/app-error.js';
import { BitbucketApiError, BitbucketConnectionBrokenError, BitbucketDiffTooLargeError, BitbucketUnreachableError } from './bitbucket-errors.js';

/**
 * How a failed attempt goes back to the queue, as GitLab's (src/code-hosts/gitlab/gitlab-failure.ts):
 * a 429 waits (the error is already a `RetryLaterError`); a refused token (the connection is marked
 * broken first), a diff too large (555) and what Bitbucket will refuse again (404, 410, 422) end the
 * job; the rest (5xx, unreachable) is retried.
 */
export function bitbucketJobFailure(error: unknown): Error {
  if (error instanceof RetryLaterError) return error;
  if (error instanceof BitbucketConnectionBrokenError) return new UnrecoverableJobError(`Bitbucket refused the connection's token: ${error.status} ${error.message}`);
  if (error instanceof BitbucketDiffTooLargeError) return new UnrecoverableJobError(error.message);
  if (error instanceof BitbucketApiError) {
    if ([404, 410, 422].includes(error.status)) return new UnrecoverableJobError(`Bitbucket refused the call: ${error.status} ${error.message}`);
    return new Error(`Bitbucket answered ${error.status} ${error.message}`);
  }
  if (error instanceof BitbucketUnreachableError) return error;
  if (error instanceof AppError) return new Error(error.message);
  return error instanceof Error ? error : new Error(String(error));
}
