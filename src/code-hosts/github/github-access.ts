import { GitHubApiError } from '../../adapters/github/github-client.js';
import { UnrecoverableJobError } from '../../adapters/queue/job-queue.js';
/** GitHub refusing access will not change by retrying; anything else (5xx, network) may. */
export function githubFailure(error: unknown, what: string): Error {
  if (error instanceof GitHubApiError && [401, 403, 404, 406, 410, 422].includes(error.status)) {
    const hint = error.status === 406 ? ' (GitHub does not render diffs this large)' : error.status === 404 ? ': link GitHub to your account, or the operator sets GITHUB_TOKEN' : '';
    return new UnrecoverableJobError(`GitHub refused ${what} (${error.status} ${error.message})${hint}`);
  }
  return error instanceof Error ? error : new Error(String(error));
}
