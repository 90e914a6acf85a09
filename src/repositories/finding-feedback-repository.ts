import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { Database } from '../db/database.js';
import { findingVerdicts, repositoryLearnings, type FindingVerdict, type RepositoryLearning } from '../db/schema/index.js';
import type { RejectedFinding } from '../domain/findings.js';

export type VerdictInput = {
  userId: string;
  /** Null: the verdict stays on its review and teaches nothing (a diff review without a repository). */
  repositoryName: string | null;
  findingId: string;
  verdict: FindingVerdict;
  note: string | null;
  file: string;
  title: string;
  comment: string;
} & ({ pullRequestId: string; diffReviewId?: undefined } | { diffReviewId: string; pullRequestId?: undefined });

/** Verdicts kept per repository for suppression at most: the newest, so a review reads a bounded set. */
const MAX_REJECTED = 500;

/** Teams' verdicts on findings and the learnings drawn from them; every read is scoped to one user. */
export class FindingFeedbackRepository {
  /** Built once and named: every review reads it (see ReviewRepository's hot statements). */
  private readonly feedbackForReview;

  constructor(private readonly db: Database) {
    this.feedbackForReview = feedbackForReviewStatement(db);
  }

  /** Records (or changes) a verdict; a `wrong` one with a note is the repository's learning, any other verdict has none. */
  async setVerdict(input: VerdictInput): Promise<void> {
    await this.db.transaction(async (tx) => {
      const { note, verdict } = input;
      const [row] = await tx
        .insert(findingVerdicts)
        .values(input)
        .onConflictDoUpdate({
          target: input.diffReviewId === undefined ? [findingVerdicts.pullRequestId, findingVerdicts.findingId] : [findingVerdicts.diffReviewId, findingVerdicts.findingId],
          set: { verdict, note, file: input.file, title: input.title, comment: input.comment, userId: input.userId, repositoryName: input.repositoryName },
        })
        .returning({ id: findingVerdicts.id });
      const verdictId = row!.id;
      if (verdict === 'wrong' && note !== null && input.repositoryName !== null) {
        await tx
          .insert(repositoryLearnings)
          .values({ userId: input.userId, verdictId, repositoryName: input.repositoryName, note, findingTitle: input.title })
          .onConflictDoUpdate({ target: repositoryLearnings.verdictId, set: { note, findingTitle: input.title, createdAt: sql`now()` } });
      } else {
        await tx.delete(repositoryLearnings).where(eq(repositoryLearnings.verdictId, verdictId));
      }
    });
  }

  /** The verdicts on a pull request's findings, by finding id. */
  async verdictsOf(pullRequestId: string): Promise<Map<string, FindingVerdict>> {
    const rows = await this.db.select({ findingId: findingVerdicts.findingId, verdict: findingVerdicts.verdict }).from(findingVerdicts).where(eq(findingVerdicts.pullRequestId, pullRequestId));
    return new Map(rows.map((row) => [row.findingId, row.verdict]));
  }

  /** The verdicts on a diff review's findings, by finding id. */
  async verdictsOfDiffReview(diffReviewId: string): Promise<Map<string, FindingVerdict>> {
    const rows = await this.db.select({ findingId: findingVerdicts.findingId, verdict: findingVerdicts.verdict }).from(findingVerdicts).where(eq(findingVerdicts.diffReviewId, diffReviewId));
    return new Map(rows.map((row) => [row.findingId, row.verdict]));
  }

  /**
   * What a review of the user's pull request in a repository needs of the team's feedback, in one
   * statement: the rejected findings (as `rejected`) and the notes of the `limit` newest learnings.
   */
  async forReview(userId: string, repositoryName: string, limit: number): Promise<{ rejected: RejectedFinding[]; learnings: string[] }> {
    const [row] = await this.feedbackForReview.execute({ userId, repositoryName, limit });
    return { rejected: row?.rejected ?? [], learnings: row?.learnings ?? [] };
  }

  /** The user's learnings, of one repository or all, newest first. */
  learnings(userId: string, repositoryName: string | undefined, limit: number): Promise<RepositoryLearning[]> {
    const scope = repositoryName === undefined ? eq(repositoryLearnings.userId, userId) : and(eq(repositoryLearnings.userId, userId), eq(repositoryLearnings.repositoryName, repositoryName));
    return this.db.select().from(repositoryLearnings).where(scope).orderBy(desc(repositoryLearnings.createdAt), desc(repositoryLearnings.id)).limit(limit);
  }

  /** Deletes one of the user's learnings (the verdict stays); false when there is none of theirs. */
  async deleteLearning(userId: string, id: string): Promise<boolean> {
    const rows = await this.db
      .delete(repositoryLearnings)
      .where(and(eq(repositoryLearnings.id, id), eq(repositoryLearnings.userId, userId)))
      .returning({ id: repositoryLearnings.id });
    return rows.length > 0;
  }
}

/** `forReview`'s statement: the user's rejected findings in the repository, newest first, and the newest learnings' notes. */
function feedbackForReviewStatement(db: Database) {
  const userId = sql.placeholder('userId');
  const repositoryName = sql.placeholder('repositoryName');
  const rejected = db
    .select({ findingId: findingVerdicts.findingId, file: findingVerdicts.file, title: findingVerdicts.title, comment: findingVerdicts.comment })
    .from(findingVerdicts)
    .where(and(eq(findingVerdicts.userId, userId), eq(findingVerdicts.repositoryName, repositoryName), inArray(findingVerdicts.verdict, ['wrong', 'wontfix'])))
    .orderBy(desc(findingVerdicts.updatedAt))
    .limit(MAX_REJECTED)
    .as('rejected');
  const notes = db
    .select({ note: repositoryLearnings.note })
    .from(repositoryLearnings)
    .where(and(eq(repositoryLearnings.userId, userId), eq(repositoryLearnings.repositoryName, repositoryName)))
    .orderBy(desc(repositoryLearnings.createdAt), desc(repositoryLearnings.id))
    .limit(sql.placeholder('limit'))
    .as('notes');
  return db
    .select({
      rejected: sql<RejectedFinding[]>`(select coalesce(json_agg(json_build_object('findingId', ${rejected.findingId}, 'file', ${rejected.file}, 'title', ${rejected.title}, 'comment', ${rejected.comment})), '[]') from ${rejected})`,
      learnings: sql<string[]>`(select coalesce(json_agg(${notes.note}), '[]') from ${notes})`,
    })
    .from(sql`(select 1) as one`)
    .prepare('feedback_for_review');
}
