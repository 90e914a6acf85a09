import { toGitHubError } from '../../adapters/github/github-app.js';
import { GitHubApiError } from '../../adapters/github/github-client.js';
import { RetryLaterError, UnrecoverableJobError } from '../../adapters/queue/job-queue.js';
import { AppError } from '../../lib/app-error.js';

/**
 * How a failed attempt goes back to the queue: a rate limit waits as long as GitHub asked; GitHub
 * refusing the App (401, 403, 404, 410, 422) will not change by retrying; the rest is retried.
 */
export function githubJobFailure(error: unknown): Error {
  const converted = toGitHubError(error);
  if (converted instanceof GitHubApiError) {
    if (converted.retryAfterMs !== undefined) return new RetryLaterError(`GitHub rate limit (${converted.status}): ${converted.message}`, converted.retryAfterMs);
    if ([401, 403, 404, 410, 422].includes(converted.status)) return new UnrecoverableJobError(`GitHub refused the App (${converted.status} ${converted.message})`);
    return new Error(`GitHub answered ${converted.status}: ${converted.message}`);
  }
  if (converted instanceof AppError) return new Error(converted.message);
  return converted;
}
