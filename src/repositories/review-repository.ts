import { and, desc, eq, sql } from 'drizzle-orm';
import type { Database, Executor } from '../db/database.js';
import type { PullRequestSelector } from '../lib/ids.js';
import {
  pullRequests,
  reviews,
  users,
  webhookDeliveries,
  workspaceSettings,
  type PipelineState,
  type PullRequest,
  type Review,
  type ReviewCoverage,
  type ReviewMode,
  type User,
  type WorkspaceSettings,
} from '../db/schema/index.js';

export interface ReviewStart {
  pullRequestId: string;
  prId: number;
  userId: string;
  headSha: string;
  mode: ReviewMode;
  trigger: 'webhook' | 'manual';
}

export interface ReviewOutcome {
  reviewSummary: string;
  reviewRawJson: unknown;
  reviewdSha: string;
  coverage: ReviewCoverage;
}

/** The review of a pull request and its runs; every write of a run is fenced by its run id. */
export class ReviewRepository {
  constructor(private readonly db: Database) {}

  /**
   * Starts a run: the pull request's one review row goes back to `WEBHOOK_RECEIVED` / `pending`
   * with a new run id. Unless `force`, a commit already under review or reviewed starts nothing (a
   * failed run may start again). Returns the new run id, or null when nothing started.
   */
  async start(run: ReviewStart, { force = false }: { force?: boolean } = {}): Promise<string | null> {
    return this.db.transaction(async (tx) => {
      const rows = await tx
        .insert(reviews)
        .values({ id: run.pullRequestId, prId: run.prId, userId: run.userId, headSha: run.headSha, mode: run.mode, triggedBy: run.trigger })
        .onConflictDoUpdate({
          target: reviews.id,
          set: {
            userId: run.userId,
            headSha: run.headSha,
            mode: run.mode,
            triggedBy: run.trigger,
            runId: sql`gen_random_uuid()`,
            state: 'WEBHOOK_RECEIVED',
            status: 'pending',
            attemptNumber: 1,
            duration: 0,
            failureReason: null,
            incrementalDiff: null,
            startedAt: new Date(),
            completedAt: null,
          },
          setWhere: force ? undefined : sql`${reviews.headSha} is distinct from excluded.head_sha or ${reviews.status} = 'failed'`,
        })
        .returning({ runId: reviews.runId });
      if (rows.length === 0) return null;
      await this.setPullRequestStatus(run.pullRequestId, 'pending', tx);
      return rows[0]!.runId;
    });
  }

  /** A run's review with its pull request, owner and workspace settings: what a pipeline step reads, in one query. */
  async loadRun(id: string): Promise<{ review: Review; pr: PullRequest; owner: User; settings: WorkspaceSettings | null } | undefined> {
    const [row] = await this.db
      .select({ review: reviews, pr: pullRequests, owner: users, settings: workspaceSettings })
      .from(reviews)
      .innerJoin(pullRequests, eq(pullRequests.id, reviews.id))
      .innerJoin(users, eq(users.id, pullRequests.userId))
      .leftJoin(workspaceSettings, eq(workspaceSettings.userId, users.id))
      .where(eq(reviews.id, id))
      .limit(1);
    return row;
  }

  /** The review and pull request a stored delivery started a run for, in one query. */
  async runOfDelivery(deliveryId: string): Promise<{ review: Review; pr: PullRequest; headSha: string } | undefined> {
    const [row] = await this.db
      .select({ review: reviews, pr: pullRequests, headSha: webhookDeliveries.headSha })
      .from(webhookDeliveries)
      .innerJoin(pullRequests, eq(pullRequests.prId, webhookDeliveries.prId))
      .innerJoin(reviews, eq(reviews.id, pullRequests.id))
      .where(and(eq(webhookDeliveries.deliveryId, deliveryId), eq(webhookDeliveries.startsReview, true)))
      .limit(1);
    return row;
  }

  /**
   * Moves a pending run to the next pipeline state; false when the run is no longer current.
   * `relaxed` skips waiting for the WAL flush: for a state the next step's own durable write
   * supersedes, losing it in a database crash costs nothing (steps check the run, not the state).
   */
  async advance(id: string, runId: string, state: PipelineState, attempt: number, { relaxed = false } = {}): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      if (relaxed) await tx.execute(sql`set local synchronous_commit = off`);
      const rows = await tx.update(reviews).set({ state, attemptNumber: attempt }).where(this.current(id, runId)).returning({ id: reviews.id });
      return rows.length > 0;
    });
  }

  /** The extracted content of a run and its new state, in one commit. False when the run is no longer current. */
  async storeContent(id: string, runId: string, content: { diff: string; incrementalDiff: string | null }, attempt: number): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const rows = await tx
        .update(reviews)
        .set({ state: 'PR_CONTENT_EXTRACTED', attemptNumber: attempt, incrementalDiff: content.incrementalDiff })
        .where(this.current(id, runId))
        .returning({ id: reviews.id });
      if (rows.length === 0) return false;
      await tx.update(pullRequests).set({ diffContent: content.diff, updatedAt: sql`${pullRequests.updatedAt}` }).where(eq(pullRequests.id, id));
      return true;
    });
  }

  async complete(id: string, runId: string, outcome: ReviewOutcome): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const rows = await tx
        .update(reviews)
        .set({ ...outcome, state: 'PROCESSING_COMPLETED', status: 'completed', completedAt: new Date(), duration: elapsed(), failureReason: null })
        .where(this.current(id, runId))
        .returning({ id: reviews.id });
      if (rows.length > 0) await this.setPullRequestStatus(id, 'completed', tx);
      return rows.length > 0;
    });
  }

  /** The run failed for good; its reason stays on the review. */
  async fail(id: string, runId: string, reason: string, attempt: number): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const rows = await tx
        .update(reviews)
        .set({ state: 'PROCESSING_FAILED', status: 'failed', failureReason: reason.slice(0, 2000), attemptNumber: attempt, completedAt: new Date(), duration: elapsed() })
        .where(this.current(id, runId))
        .returning({ id: reviews.id });
      if (rows.length > 0) await this.setPullRequestStatus(id, 'failed', tx);
      return rows.length > 0;
    });
  }

  /** The review and pull request, by GitHub's pull request id or the internal id, for their owner. */
  async findWithPullRequest(userId: string, selector: PullRequestSelector): Promise<{ pr: PullRequest; review: Review | null } | undefined> {
    const [row] = await this.db
      .select({ pr: pullRequests, review: reviews })
      .from(pullRequests)
      .leftJoin(reviews, eq(reviews.id, pullRequests.id))
      .where(and(eq(pullRequests.userId, userId), 'prId' in selector ? eq(pullRequests.prId, selector.prId) : eq(pullRequests.id, selector.id)))
      .limit(1);
    return row;
  }

  /** The user's most recent reviews with their pull requests, newest first. */
  recentForUser(userId: string, limit: number) {
    return this.db
      .select({ review: reviews, pr: pullRequests })
      .from(reviews)
      .innerJoin(pullRequests, eq(pullRequests.id, reviews.id))
      .where(eq(reviews.userId, userId))
      .orderBy(desc(reviews.startedAt), desc(reviews.id))
      .limit(limit);
  }

  private current(id: string, runId: string) {
    return and(eq(reviews.id, id), eq(reviews.runId, runId), eq(reviews.status, 'pending'));
  }

  private async setPullRequestStatus(id: string, status: 'pending' | 'completed' | 'failed', executor: Executor) {
    // The list is ordered by GitHub's updated_at: a status change must not move the pull request.
    await executor.update(pullRequests).set({ reviewStatus: status, updatedAt: sql`${pullRequests.updatedAt}` }).where(eq(pullRequests.id, id));
  }
}

/** Milliseconds since the run started, computed by the database from the row itself. */
const elapsed = () => sql<number>`greatest(0, (extract(epoch from (now() - ${reviews.startedAt})) * 1000)::int)`;
