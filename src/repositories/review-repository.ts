import { sql } from 'drizzle-orm';
import type { Database, Executor } from '../db/database.js';
import { reviews, type ReviewMode } from '../db/schema/index.js';

export interface ReviewStart {
  pullRequestId: string;
  prId: number;
  userId: string;
  headSha: string;
  mode: ReviewMode;
  trigger: 'webhook' | 'manual';
}

export class ReviewRepository {
  constructor(private readonly db: Database) {}

  /**
   * Starts a review run: the one review row of the pull request goes back to `WEBHOOK_RECEIVED` /
   * `pending`. Unless `force`, a commit already under review or reviewed starts nothing (a failed
   * run may start again); the row lock makes this hold for concurrent deliveries. True if started.
   */
  async start(run: ReviewStart, { force = false, executor = this.db }: { force?: boolean; executor?: Executor } = {}): Promise<boolean> {
    const rows = await executor
      .insert(reviews)
      .values({
        id: run.pullRequestId,
        prId: run.prId,
        userId: run.userId,
        headSha: run.headSha,
        mode: run.mode,
        triggedBy: run.trigger,
      })
      .onConflictDoUpdate({
        target: reviews.id,
        set: {
          userId: run.userId,
          headSha: run.headSha,
          mode: run.mode,
          triggedBy: run.trigger,
          state: 'WEBHOOK_RECEIVED',
          status: 'pending',
          attemptNumber: 1,
          duration: 0,
          failureReason: null,
          startedAt: new Date(),
          completedAt: null,
        },
        setWhere: force ? undefined : sql`${reviews.headSha} is distinct from excluded.head_sha or ${reviews.status} = 'failed'`,
      })
      .returning({ id: reviews.id });
    return rows.length > 0;
  }
}
