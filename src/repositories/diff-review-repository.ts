import { and, desc, eq, isNull, lt, or, sql } from 'drizzle-orm';
import type { Database } from '../db/database.js';
import { diffReviews, workspaceSettings, type DiffReview, type ReviewCoverage, type WorkspaceSettings } from '../db/schema/index.js';

export type NewDiffReview = typeof diffReviews.$inferInsert;

/** What a completed diff review stores. */
export interface DiffReviewOutcome {
  reviewSummary: string;
  reviewRawJson: unknown;
  coverage: ReviewCoverage;
}

/** A list entry of `GET /review/diff`. */
export type DiffReviewListRow = Pick<DiffReview, 'id' | 'status' | 'title' | 'repositoryName' | 'createdAt'>;

/** Diff reviews (decisions.md §17); every read by id is scoped to its user. */
export class DiffReviewRepository {
  constructor(private readonly db: Database) {}

  async create(values: NewDiffReview): Promise<DiffReview> {
    const [row] = await this.db.insert(diffReviews).values(values).returning();
    return row!;
  }

  /** The user's diff review; undefined for another user's (they are told 404). */
  async findForUser(userId: string, id: string): Promise<DiffReview | undefined> {
    const [row] = await this.db
      .select()
      .from(diffReviews)
      .where(and(eq(diffReviews.id, id), eq(diffReviews.userId, userId)))
      .limit(1);
    return row;
  }

  /** The status and progress alone, which the events stream polls. */
  async progressOf(userId: string, id: string) {
    const [row] = await this.db
      .select({ status: diffReviews.status, done: diffReviews.progressDone, total: diffReviews.progressTotal, error: diffReviews.error })
      .from(diffReviews)
      .where(and(eq(diffReviews.id, id), eq(diffReviews.userId, userId)))
      .limit(1);
    return row;
  }

  /** The review with its owner's workspace settings, for the job: one round trip. */
  async loadForJob(id: string): Promise<{ review: DiffReview; settings: WorkspaceSettings | null } | undefined> {
    const [row] = await this.db.select({ review: diffReviews, settings: workspaceSettings }).from(diffReviews)
      // The settings of whoever pays: the organization named with the diff, else its user (decisions.md §15).
      .leftJoin(workspaceSettings, or(eq(workspaceSettings.orgId, diffReviews.orgId), and(isNull(diffReviews.orgId), eq(workspaceSettings.userId, diffReviews.userId))))
      .where(eq(diffReviews.id, id)).limit(1);
    return row;
  }

  /** Newest first, after the `(createdAt, id)` of the previous page's last entry. */
  page(userId: string, after: { createdAt: Date; id: string } | undefined, limit: number): Promise<DiffReviewListRow[]> {
    const scope = eq(diffReviews.userId, userId);
    const where = after === undefined ? scope : and(scope, or(lt(diffReviews.createdAt, after.createdAt), and(eq(diffReviews.createdAt, after.createdAt), lt(diffReviews.id, after.id))));
    return this.db
      .select({ id: diffReviews.id, status: diffReviews.status, title: diffReviews.title, repositoryName: diffReviews.repositoryName, createdAt: diffReviews.createdAt })
      .from(diffReviews)
      .where(where)
      .orderBy(desc(diffReviews.createdAt), desc(diffReviews.id))
      .limit(limit);
  }

  /** A queued review starts (a retried one starts again from no progress); false when it has already finished. */
  async start(id: string): Promise<boolean> {
    const rows = await this.db
      .update(diffReviews)
      .set({ status: 'running', progressDone: 0, progressTotal: null })
      .where(and(eq(diffReviews.id, id), or(eq(diffReviews.status, 'queued'), eq(diffReviews.status, 'running'))))
      .returning({ id: diffReviews.id });
    return rows.length > 0;
  }

  /** The number of chunks, once the diff is planned. */
  async planned(id: string, total: number): Promise<void> {
    await this.db.update(diffReviews).set({ progressTotal: total }).where(and(eq(diffReviews.id, id), eq(diffReviews.status, 'running')));
  }

  async chunkDone(id: string): Promise<void> {
    await this.db
      .update(diffReviews)
      .set({ progressDone: sql`${diffReviews.progressDone} + 1` })
      .where(and(eq(diffReviews.id, id), eq(diffReviews.status, 'running')));
  }

  async complete(id: string, outcome: DiffReviewOutcome): Promise<void> {
    await this.db
      .update(diffReviews)
      .set({ status: 'completed', ...outcome, error: null, completedAt: new Date() })
      .where(eq(diffReviews.id, id));
  }

  async fail(id: string, error: string): Promise<void> {
    await this.db
      .update(diffReviews)
      .set({ status: 'failed', error, completedAt: new Date() })
      .where(and(eq(diffReviews.id, id), or(eq(diffReviews.status, 'queued'), eq(diffReviews.status, 'running'))));
  }
}
