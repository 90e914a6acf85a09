import { GitLabApiError, GitLabConnectionBrokenError, GitLabUnreachableError } from './gitlab-errors.js';
import { RetryLaterError, UnrecoverableJobError } from '../../adapters/queue/job-queue.js';
import { AppError } from '../../lib/app-error.js';

/**
 * How a failed attempt goes back to the queue: a 429 waits as GitLab asked (the error is already a
 * `RetryLaterError`); a refused token (the connection is marked broken first) and what GitLab will
 * refuse again (404, 410, 422) end the job; the rest (5xx, unreachable) is retried.
 */
export function gitlabJobFailure(error: unknown): Error {
  if (error instanceof RetryLaterError) return error;
  if (error instanceof GitLabConnectionBrokenError) return new UnrecoverableJobError(`GitLab refused the connection's token: ${withStatus(error)}`);
  if (error instanceof GitLabApiError) {
    if ([404, 410, 422].includes(error.status)) return new UnrecoverableJobError(`GitLab refused the call: ${withStatus(error)}`);
    return new Error(`GitLab answered ${withStatus(error)}`);
  }
  if (error instanceof GitLabUnreachableError) return error;
  if (error instanceof AppError) return new Error(error.message);
  return error instanceof Error ? error : new Error(String(error));
}

/** GitLab's messages mostly start with their status already (`404 Tree Not Found`): said once. */
const withStatus = (error: GitLabApiError) => (error.message.startsWith(`${error.status}`) ? error.message : `${error.status} ${error.message}`);
