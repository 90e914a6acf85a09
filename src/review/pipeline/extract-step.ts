import type { GitHubClient } from '../../adapters/github/github-client.js';
import type { Job, JobQueue } from '../../adapters/queue/job-queue.js';
import type { SecretBox } from '../../lib/crypto/secret-box.js';
import type { PullRequestRepository } from '../../repositories/pull-request-repository.js';
import type { ReviewRepository } from '../../repositories/review-repository.js';
import type { UserRepository } from '../../repositories/user-repository.js';
import { githubFailure, tokenFor } from './github-access.js';
import { isCurrentRun } from './review-runs.js';

export interface ExtractDeps {
  github: GitHubClient;
  users: UserRepository;
  pullRequests: PullRequestRepository;
  reviews: ReviewRepository;
  queue: JobQueue;
  secretBox: SecretBox;
  fallbackToken: string | undefined;
}

/**
 * `sanitizedPrPayload`: reads the pull request's diff from GitHub and caches it in `diffContent`.
 * For a push to an already reviewed pull request it also reads what changed since the last
 * reviewed commit, so that the review looks at the push rather than at everything again.
 */
export async function extractContent(deps: ExtractDeps, job: Job<'sanitizedPrPayload'>): Promise<void> {
  const { pullRequestId, runId } = job.payload;
  const review = await deps.reviews.find(pullRequestId);
  const pr = await deps.pullRequests.find(pullRequestId);
  if (!isCurrentRun(review, runId) || pr === undefined) return;

  const token = tokenFor(await deps.users.findById(pr.userId), deps.secretBox, deps.fallbackToken);
  const headSha = review.headSha ?? pr.headSha;
  const diff = await deps.github.pullRequestDiff(pr.repositoryName, pr.prNumber, token).catch((error: unknown) => {
    throw githubFailure(error, 'the pull request diff');
  });
  await deps.pullRequests.setDiffContent(pr.id, diff);

  const incremental =
    review.triggedBy === 'webhook' && review.reviewdSha !== null && review.reviewdSha !== headSha
      ? await deps.github.compareDiff(pr.repositoryName, review.reviewdSha, headSha, token).catch((error: unknown) => {
          throw githubFailure(error, 'the diff since the last review');
        })
      : null;

  if (!(await deps.reviews.advance(pr.id, runId, 'PR_CONTENT_EXTRACTED', job.attempt, { incrementalDiff: incremental }))) return;
  await deps.queue.add('extractedPrContent', { pullRequestId: pr.id, runId }, { jobId: `content-${runId}` });
}
