import { setTimeout as sleep } from 'node:timers/promises';
import type { z } from 'zod';
import type { JobQueue } from '../adapters/queue/job-queue.js';
import type { DiffReview, DiffReviewStatus, FindingVerdict } from '../db/schema/index.js';
import { organization, personal } from '../domain/owners.js';
import { AppError } from '../lib/app-error.js';
import type { Logger } from '../lib/logger.js';
import type { DiffReviewRepository } from '../repositories/diff-review-repository.js';
import type { FindingFeedbackRepository } from '../repositories/finding-feedback-repository.js';
import { parseRepositoryConfig } from '../repository-config/parse-repository-config.js';
import { reviewMode } from '../repository-config/run-policy.js';
import { parseUnifiedDiff } from '../review/prepare/diff/parse-unified-diff.js';
import { scoreReview } from '../review/findings/score.js';
import type { DiffReviewBody, diffReviewList, diffReviewState } from '../routes/review/diff-review-schemas.js';
import type { OrgAccess } from './org-access.js';

/** Entries of a `GET /review/diff` page. */
export const DIFF_REVIEW_PAGE_SIZE = 20;
/** How often the events stream reads the review's progress: the job may run in another process. */
const EVENTS_POLL_MS = 250;
/** A stream open longer than this ends (the client reads the state and may open another). */
const EVENTS_MAX_MS = 30 * 60 * 1000;

export type DiffReviewEvent = { type: 'progress'; done: number; total: number } | { type: 'completed'; review: DiffReviewResult } | { type: 'failed'; error: string };
type DiffReviewResult = NonNullable<z.input<typeof diffReviewState>['review']>;

interface StoredFinding {
  id?: string;
  severity?: unknown;
  file: string;
  title: string;
  comment?: string;
}

interface RawReview {
  comments?: StoredFinding[];
  skippedFiles?: Array<{ path: string; reason: string }>;
  configProblems?: Array<{ line: number; message: string }>;
}

/**
 * Reviews of diffs sent by the command line or a script (decisions.md §17): stored with their files,
 * reviewed by the pull requests' engine through the queue, read back, streamed, and judged.
 */
export class DiffReviewService {
  constructor(
    private readonly deps: {
      diffReviews: DiffReviewRepository;
      feedback: FindingFeedbackRepository;
      access: OrgAccess;
      queue: JobQueue;
      log: Logger;
    },
  ) {}

  async create(userId: string, body: DiffReviewBody): Promise<{ reviewId: string; status: 'queued' }> {
    if (parseUnifiedDiff(body.diff).length === 0) {
      throw new AppError('BAD_REQUEST', 'diff must be a unified diff (git diff) changing at least one file', [{ path: 'body.diff', message: 'No file in the diff' }]);
    }
    // A charge to an organization needs its membership; a non-member learns nothing of it (decisions.md §15).
    if (body.orgId !== undefined) await this.deps.access.require(body.orgId, userId, 'member');
    const config = parseRepositoryConfig(body.config ?? '');
    const review = await this.deps.diffReviews.create({
      userId,
      orgId: body.orgId?.toLowerCase() ?? null,
      title: body.title || null,
      repositoryName: body.repository ?? null,
      mode: reviewMode(body.mode ?? null, config),
      diff: body.diff,
      files: body.files ?? [],
      repositoryConfig: config,
    });
    try {
      await this.deps.queue.add('diffReview', { diffReviewId: review.id }, { jobId: `diff-${review.id}` });
    } catch (error) {
      this.deps.log.error({ err: error, diffReviewId: review.id }, 'could not enqueue a diff review');
      await this.deps.diffReviews.fail(review.id, 'The review could not be queued');
      throw new AppError('INTERNAL', 'Failed to start the review');
    }
    return { reviewId: review.id, status: 'queued' };
  }

  async state(userId: string, id: string): Promise<z.input<typeof diffReviewState>> {
    const review = await this.find(userId, id);
    return {
      reviewId: review.id,
      status: review.status,
      ...(review.status === 'failed' ? { error: review.error ?? 'The review failed' } : {}),
      ...(review.status === 'completed' ? { review: await this.result(review) } : {}),
    };
  }

  async list(userId: string, cursor: string | undefined): Promise<z.input<typeof diffReviewList>> {
    const rows = await this.deps.diffReviews.page(userId, cursor === undefined ? undefined : decodeCursor(cursor), DIFF_REVIEW_PAGE_SIZE + 1);
    const page = rows.slice(0, DIFF_REVIEW_PAGE_SIZE);
    const last = page.at(-1);
    return {
      items: page.map((row) => ({ reviewId: row.id, status: row.status, title: row.title, repository: row.repositoryName, createdAt: row.createdAt.toISOString() })),
      nextCursor: rows.length > DIFF_REVIEW_PAGE_SIZE && last ? encodeCursor(last.createdAt, last.id) : null,
    };
  }

  /**
   * The review's events from its start: one `progress` per chunk reviewed, then `completed` or
   * `failed`. Read from the database, so a job running in another process streams the same; 404
   * (before the first byte) for another user's review.
   */
  async events(userId: string, id: string, signal: AbortSignal): Promise<AsyncIterable<DiffReviewEvent>> {
    await this.find(userId, id);
    const { diffReviews } = this.deps;
    const ending = (status: Extract<DiffReviewStatus, 'completed' | 'failed'>) => this.ending(userId, id, status);
    return (async function* stream() {
      let sent = 0;
      const deadline = Date.now() + EVENTS_MAX_MS;
      while (!signal.aborted && Date.now() < deadline) {
        const progress = await diffReviews.progressOf(userId, id);
        if (progress === undefined) return;
        if (progress.total !== null) {
          // A retried job starts its count again: the stream never goes backwards.
          for (; sent < Math.min(progress.done, progress.total); sent++) yield { type: 'progress', done: sent + 1, total: progress.total };
        }
        if (progress.status === 'completed' || progress.status === 'failed') {
          yield await ending(progress.status);
          return;
        }
        await sleep(EVENTS_POLL_MS, undefined, { signal }).catch(() => undefined);
      }
    })();
  }

  /**
   * A verdict on a finding of the user's diff review; it teaches the review's repository, if it names
   * one (decisions.md §10, §17): the organization's learnings for a diff sent for it, while the user
   * is still a member (404 after leaving), else the user's own.
   */
  async setVerdict(request: { userId: string; reviewId: string; findingId: string; verdict: FindingVerdict; note?: string | null }): Promise<void> {
    const review = await this.find(request.userId, request.reviewId);
    if (review.orgId !== null) await this.deps.access.role(review.orgId, request.userId);
    const comments = (review.reviewRawJson as RawReview | null)?.comments ?? [];
    const finding = comments.find((comment) => comment.id === request.findingId);
    if (finding === undefined) throw new AppError('NOT_FOUND', 'No such finding in this review');
    await this.deps.feedback.setVerdict({
      owner: review.orgId === null ? personal(request.userId) : organization(review.orgId),
      diffReviewId: review.id,
      repositoryName: review.repositoryName,
      findingId: request.findingId,
      verdict: request.verdict,
      note: request.note?.trim() ? request.note.trim() : null,
      file: finding.file,
      title: finding.title,
      comment: finding.comment ?? '',
    });
  }

  private async ending(userId: string, id: string, status: Extract<DiffReviewStatus, 'completed' | 'failed'>): Promise<DiffReviewEvent> {
    const review = await this.find(userId, id);
    if (status === 'failed') return { type: 'failed', error: review.error ?? 'The review failed' };
    return { type: 'completed', review: await this.result(review) };
  }

  private async find(userId: string, id: string): Promise<DiffReview> {
    const review = await this.deps.diffReviews.findForUser(userId, id);
    if (review === undefined) throw new AppError('NOT_FOUND', 'No such diff review');
    return review;
  }

  private async result(review: DiffReview): Promise<DiffReviewResult> {
    const raw = review.reviewRawJson as RawReview | null;
    const verdicts = raw?.comments?.length ? await this.deps.feedback.verdictsOfDiffReview(review.id) : new Map<string, string>();
    return {
      reviewSummary: review.reviewSummary,
      score: scoreReview(raw ?? {}),
      // Each finding shows the verdict on it, null when there is none, as a pull request's review does.
      reviewRawJSON: raw?.comments === undefined ? raw : { ...raw, comments: raw.comments.map((comment) => ({ ...comment, verdict: verdicts.get(comment.id ?? '') ?? null })) },
      skippedFiles: raw?.skippedFiles ?? [],
      configProblems: raw?.configProblems ?? [],
      coverage: review.coverage,
    };
  }
}

function encodeCursor(createdAt: Date, id: string): string {
  return Buffer.from(`${createdAt.toISOString()}|${id}`).toString('base64url');
}

function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  const [at, id] = Buffer.from(cursor, 'base64url').toString().split('|');
  const createdAt = new Date(at ?? '');
  if (Number.isNaN(createdAt.getTime()) || !id || !/^[0-9a-f-]{36}$/i.test(id)) {
    throw new AppError('BAD_REQUEST', 'cursor must be a nextCursor this list returned', [{ path: 'cursor', message: 'Invalid cursor' }]);
  }
  return { createdAt, id };
}
