import { join } from 'node:path';
import type { Job } from '../../adapters/queue/job-queue.js';
import { CodeIndex } from '../../code-context/code-index.js';
import { snapshotOfSentFiles } from '../../code-context/snapshot/sent-files-snapshot.js';
import { organization, personal } from '../../domain/owners.js';
import type { DiffReviewRepository } from '../../repositories/diff-review-repository.js';
import { DEFAULT_REPOSITORY_CONFIG, type RepositoryConfig } from '../../repository-config/repository-config-schema.js';
import { reviewChange, type EngineDeps, type OpenedCode } from './review-step.js';

export interface DiffReviewDeps extends EngineDeps {
  diffReviews: DiffReviewRepository;
  /** Where the sent files are written while their review reads them (under the data directory). */
  scratchDir: string;
}

/**
 * `diffReview`: a diff sent by the command line or a script (decisions.md §17), reviewed by the same
 * engine as a pull request. Its code context is the files sent with it; its generations are
 * recorded as a review without a pull request; progress is kept per chunk for the events stream.
 */
export async function reviewDiff(deps: DiffReviewDeps, job: Job<'diffReview'>): Promise<void> {
  const { diffReviewId: id } = job.payload;
  const loaded = await deps.diffReviews.loadForJob(id);
  if (loaded === undefined) return;
  const { review, settings } = loaded;
  if (!(await deps.diffReviews.start(id))) return;
  let remove: (() => Promise<void>) | undefined;
  let reviewed: Awaited<ReturnType<typeof reviewChange>>;
  try {
    reviewed = await reviewChange(deps, {
      // A diff sent for an organization is paid by it and reads its learnings, as its pull requests do (decisions.md §15).
      owner: review.orgId === null ? personal(review.userId) : organization(review.orgId),
      memberId: review.orgId === null ? null : review.userId,
      repositoryName: review.repositoryName,
      mode: review.mode,
      settings,
      usage: { kind: 'review', pullRequestId: null, repositoryName: review.repositoryName },
      ...(review.title ? { pullRequest: { title: review.title } } : {}),
      config: (review.repositoryConfig as RepositoryConfig | null) ?? DEFAULT_REPOSITORY_CONFIG,
      diff: review.diff,
      incrementalSince: null,
      headSha: null,
      baseSha: null,
      previousFindings: [],
      openCode: async (): Promise<OpenedCode> => {
        if (review.files.length === 0) return {};
        const sent = await snapshotOfSentFiles(join(deps.scratchDir, 'diff-reviews'), review.files);
        remove = sent.remove;
        return { index: new CodeIndex(sent.snapshot) };
      },
      progress: { planned: (total) => deps.diffReviews.planned(id, total), chunkDone: () => deps.diffReviews.chunkDone(id) },
    });
  } finally {
    // Gone before the review is seen completed: the sent code stays no longer than its review.
    await remove?.();
  }
  const { output, coverage } = reviewed;
  await deps.diffReviews.complete(id, { reviewSummary: output.summary.overview, reviewRawJson: output, coverage });
}
