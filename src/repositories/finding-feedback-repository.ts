import { and, desc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { Database, Executor } from '../db/database.js';
import { ownedBy, ownerValues } from '../db/owner-condition.js';
import { findingVerdicts, pullRequests, repositoryLearnings, type FindingVerdict, type RepositoryLearning } from '../db/schema/index.js';
import type { RejectedFinding } from '../domain/findings.js';
import type { Owner } from '../domain/owners.js';

export type VerdictInput = {
  /** Whose the verdict and its learning are: the pull request's (or the diff review's) owner, whichever member gave it (decisions.md §15). */
  owner: Owner;
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

/** Teams' verdicts on findings and the learnings drawn from them; every read is scoped to one owner (a user or an organization). */
export class FindingFeedbackRepository {
  /** Built once and named, one per kind of owner: every review reads it (see ReviewRepository's hot statements). */
  private readonly feedbackForReview;

  constructor(private readonly db: Database) {
    this.feedbackForReview = { user: feedbackForReviewStatement(db, 'user'), org: feedbackForReviewStatement(db, 'org') };
  }

  /** Records (or changes) a verdict; a `wrong` one with a note is the repository's learning, any other verdict has none. */
  async setVerdict(input: VerdictInput): Promise<void> {
    await this.db.transaction(async (tx) => {
      const { owner, note, verdict, ...rest } = input;
      const owned = ownerValues(owner);
      const [row] = await tx
        .insert(findingVerdicts)
        .values({ ...rest, ...owned, note, verdict })
        .onConflictDoUpdate({
          target: input.diffReviewId === undefined ? [findingVerdicts.pullRequestId, findingVerdicts.findingId] : [findingVerdicts.diffReviewId, findingVerdicts.findingId],
          set: { verdict, note, file: input.file, title: input.title, comment: input.comment, ...owned, repositoryName: input.repositoryName },
        })
        .returning({ id: findingVerdicts.id });
      const verdictId = row!.id;
      if (verdict === 'wrong' && note !== null && input.repositoryName !== null) {
        await tx
          .insert(repositoryLearnings)
          .values({ ...owned, verdictId, repositoryName: input.repositoryName, note, findingTitle: input.title })
          .onConflictDoUpdate({ target: repositoryLearnings.verdictId, set: { ...owned, note, findingTitle: input.title, createdAt: sql`now()` } });
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
   * What a review of the owner's pull request in a repository needs of the team's feedback, in one
   * statement: the rejected findings (as `rejected`) and the notes of the `limit` newest learnings.
   */
  async forReview(owner: Owner, repositoryName: string, limit: number): Promise<{ rejected: RejectedFinding[]; learnings: string[] }> {
    const [row] = await this.feedbackForReview[owner.kind].execute({ id: owner.id, repositoryName, limit });
    return { rejected: row?.rejected ?? [], learnings: row?.learnings ?? [] };
  }

  /** The owner's learnings, of one repository or all, newest first. */
  learnings(owner: Owner, repositoryName: string | undefined, limit: number): Promise<RepositoryLearning[]> {
    const owned = ownedBy(repositoryLearnings, owner);
    const scope = repositoryName === undefined ? owned : and(owned, eq(repositoryLearnings.repositoryName, repositoryName));
    return this.db.select().from(repositoryLearnings).where(scope).orderBy(desc(repositoryLearnings.createdAt), desc(repositoryLearnings.id)).limit(limit);
  }

  /** Deletes one of the owner's learnings (the verdict stays); false when there is none of theirs. */
  async deleteLearning(owner: Owner, id: string): Promise<boolean> {
    const rows = await this.db
      .delete(repositoryLearnings)
      .where(and(eq(repositoryLearnings.id, id), ownedBy(repositoryLearnings, owner)))
      .returning({ id: repositoryLearnings.id });
    return rows.length > 0;
  }
}

/**
 * After pull requests changed space (an installation or a connection moved, decisions.md §15): their
 * verdicts and learnings go with them, to the organization or to the pull request's user. `moved`
 * names the pull requests, as a condition on `pull_requests`; run in the move's transaction.
 */
export async function feedbackFollows(tx: Executor, moved: SQL): Promise<void> {
  await tx
    .update(findingVerdicts)
    .set({ userId: sql`case when ${pullRequests.orgId} is null then ${pullRequests.userId} end`, orgId: sql`${pullRequests.orgId}`, updatedAt: sql`${findingVerdicts.updatedAt}` })
    .from(pullRequests)
    .where(and(eq(pullRequests.id, findingVerdicts.pullRequestId), moved));
  const movedIds = tx.select({ id: pullRequests.id }).from(pullRequests).where(moved);
  await tx
    .update(repositoryLearnings)
    .set({ userId: sql`${findingVerdicts.userId}`, orgId: sql`${findingVerdicts.orgId}` })
    .from(findingVerdicts)
    .where(and(eq(findingVerdicts.id, repositoryLearnings.verdictId), inArray(findingVerdicts.pullRequestId, movedIds)));
}

/** `forReview`'s statement for one kind of owner: its rejected findings in the repository, newest first, and the newest learnings' notes. */
function feedbackForReviewStatement(db: Database, kind: Owner['kind']) {
  const owner = { kind, id: sql.placeholder('id') as unknown as string };
  const repositoryName = sql.placeholder('repositoryName');
  const rejected = db
    .select({ findingId: findingVerdicts.findingId, file: findingVerdicts.file, title: findingVerdicts.title, comment: findingVerdicts.comment })
    .from(findingVerdicts)
    .where(and(ownedBy(findingVerdicts, owner), eq(findingVerdicts.repositoryName, repositoryName), inArray(findingVerdicts.verdict, ['wrong', 'wontfix'])))
    .orderBy(desc(findingVerdicts.updatedAt))
    .limit(MAX_REJECTED)
    .as('rejected');
  const notes = db
    .select({ note: repositoryLearnings.note })
    .from(repositoryLearnings)
    .where(and(ownedBy(repositoryLearnings, owner), eq(repositoryLearnings.repositoryName, repositoryName)))
    .orderBy(desc(repositoryLearnings.createdAt), desc(repositoryLearnings.id))
    .limit(sql.placeholder('limit'))
    .as('notes');
  return db
    .select({
      rejected: sql<RejectedFinding[]>`(select coalesce(json_agg(json_build_object('findingId', ${rejected.findingId}, 'file', ${rejected.file}, 'title', ${rejected.title}, 'comment', ${rejected.comment})), '[]') from ${rejected})`,
      learnings: sql<string[]>`(select coalesce(json_agg(${notes.note}), '[]') from ${notes})`,
    })
    .from(sql`(select 1) as one`)
    .prepare(`feedback_for_review_${kind}`);
}
