import type { GitHubClient } from '../../adapters/github/github-client.js';
import type { Job, JobQueue } from '../../adapters/queue/job-queue.js';
import type { ReviewRepository } from '../../repositories/review-repository.js';
import type { GitHubTokens } from '../../services/github-token.js';
import { githubFailure } from './github-access.js';
import { isCurrentRun } from './review-runs.js';

export interface ExtractDeps {
  github: GitHubClient;
  reviews: ReviewRepository;
  queue: JobQueue;
  tokens: GitHubTokens;
}

/**
 * `sanitizedPrPayload`: reads the pull request's diff from GitHub and caches it in `diffContent`.
 * For a push to an already reviewed pull request it also reads what changed since the last
 * reviewed commit, so that the review looks at the push rather than at everything again.
 */
export async function extractContent(deps: ExtractDeps, job: Job<'sanitizedPrPayload'>): Promise<void> {
  const { pullRequestId, runId } = job.payload;
  const run = await deps.reviews.loadRun(pullRequestId);
  if (run === undefined || !isCurrentRun(run.review, runId)) return;
  const { review, pr, owner } = run;

  const headSha = review.headSha ?? pr.headSha;
  const diff = await deps.tokens.read(pr, owner, (token) => deps.github.pullRequestDiff(pr.repositoryName, pr.prNumber, token)).catch((error: unknown) => {
    throw githubFailure(error, 'the pull request diff');
  });
  const since = review.reviewdSha;
  const incremental =
    review.triggedBy === 'webhook' && since !== null && since !== headSha
      ? await deps.tokens.read(pr, owner, (token) => deps.github.compareDiff(pr.repositoryName, since, headSha, token)).catch((error: unknown) => {
          throw githubFailure(error, 'the diff since the last review');
        })
      : null;

  if (!(await deps.reviews.storeContent(pr.id, runId, { diff, incrementalDiff: incremental }, job.attempt))) return;
  await deps.queue.add('extractedPrContent', { pullRequestId: pr.id, runId }, { jobId: `content-${runId}` });
}
