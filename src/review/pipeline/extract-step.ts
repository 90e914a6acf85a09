import type { KeyValueStore } from '../../adapters/kv/key-value-store.js';
import type { Job, JobQueue } from '../../adapters/queue/job-queue.js';
import type { ChangeReader } from '../../code-hosts/code-host.js';
import type { ReadingHosts } from '../../code-hosts/code-hosts.js';
import type { PullRequest } from '../../db/schema/index.js';
import type { ReviewRepository } from '../../repositories/review-repository.js';
import { readRepositoryConfig } from '../../repository-config/load-repository-config.js';
import { reviewMode, switchedOff } from '../../repository-config/run-policy.js';
import { diffStats } from '../prepare/diff/parse-unified-diff.js';
import { isCurrentRun, sameCommit } from './review-runs.js';

export interface ExtractDeps {
  readers: ReadingHosts;
  reviews: ReviewRepository;
  queue: JobQueue;
  /** Caches `.ai-review.yml` per repository and base commit. */
  kv: KeyValueStore;
  /** Told once a run goes on to be reviewed (not switched off by the repository's file): the GitHub App's check run starts. */
  onReviewStarts?: (pr: PullRequest, runId: string) => Promise<void>;
  /**
   * Starts reading the head commit's code (decisions.md §11) without waiting for it: the snapshot
   * downloads while the diff is read and the run waits for a review worker, off the review's path.
   */
  prefetchCode?: (reader: ChangeReader, commit: string) => void;
}

/**
 * `sanitizedPrPayload`: reads the pull request's diff from its code host and caches it in `diffContent`.
 * For a push to an already reviewed pull request it also reads what changed since the last
 * reviewed commit, so that the review looks at the push rather than at everything again.
 */
export async function extractContent(deps: ExtractDeps, job: Job<'sanitizedPrPayload'>): Promise<void> {
  const { pullRequestId, runId, memberId } = job.payload;
  const run = await deps.reviews.loadRun(pullRequestId);
  if (run === undefined || !isCurrentRun(run.review, runId)) return;
  const { review, pr, owner } = run;

  const reader = await deps.readers.reader(pr, owner);
  // The repository's settings, from the base commit with the diff's token (decisions.md §10). Read
  // first: a run the file switches off reads no diff at all.
  const config = await readRepositoryConfig(deps.kv, reader, await reader.configRef());
  const off = switchedOff({ triggedBy: review.triggedBy, draft: pr.draft }, config);
  // A draft marked ready meanwhile is reviewed after all: its `ready_for_review` found this run going.
  if (off !== null && (await deps.reviews.dismiss(pr.id, runId, { onlyWhileDraft: off === 'draft' })) !== 'kept') return;
  const headSha = review.headSha ?? pr.headSha;
  if (config.context !== 'none') deps.prefetchCode?.(reader, headSha);
  const since = review.reviewdSha;
  // The check run's start, the change's diff and the push's are independent: side by side, one round trip.
  const [, diff, incremental] = await Promise.all([
    deps.onReviewStarts?.(pr, runId),
    reader.changeDiff(),
    review.triggedBy === 'webhook' && since !== null && !sameCommit(since, headSha) ? reader.pushDiff(since, headSha) : null,
  ]);

  // A host whose event carries no counts (GitLab) gets them from the diff, once: the lists show them.
  const stats = pr.additions === null ? diffStats(diff) : undefined;
  const content = { diff, incrementalDiff: incremental, mode: reviewMode(review.requestedMode, config), repositoryConfig: config, stats };
  if (!(await deps.reviews.storeContent(pr.id, runId, content, job.attempt))) return;
  // Who triggered the run goes on with it (decisions.md §15); a webhook's run carries no one (`runMember`).
  await deps.queue.add('extractedPrContent', { pullRequestId: pr.id, runId, memberId }, { jobId: `content-${runId}` });
}
