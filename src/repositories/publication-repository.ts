import { and, eq, inArray, isNull } from 'drizzle-orm';
import type { Database } from '../db/database.js';
import { postedFindings, publications, pullRequests, type PostedFinding, type Publication, type PullRequest } from '../db/schema/index.js';

export type PublicationChanges = Partial<Omit<Publication, 'pullRequestId' | 'updatedAt'>>;

/** What the service posted on each pull request, whatever its host, and which comment carries which finding. */
export class PublicationRepository {
  constructor(private readonly db: Database) {}

  async find(pullRequestId: string): Promise<Publication | undefined> {
    const [row] = await this.db.select().from(publications).where(eq(publications.pullRequestId, pullRequestId)).limit(1);
    return row;
  }

  /** Creates or changes the publication record of a pull request. */
  async save(pullRequestId: string, runId: string, changes: PublicationChanges): Promise<void> {
    await this.db
      .insert(publications)
      .values({ pullRequestId, runId, ...changes })
      .onConflictDoUpdate({ target: publications.pullRequestId, set: { runId, ...changes, updatedAt: new Date() } });
  }

  /** Records the end of a run's publication, unless a later run has taken the record over. */
  async finish(pullRequestId: string, runId: string, changes: PublicationChanges): Promise<void> {
    await this.db
      .update(publications)
      .set({ ...changes, updatedAt: new Date() })
      .where(and(eq(publications.pullRequestId, pullRequestId), eq(publications.runId, runId)));
  }

  postedFindings(pullRequestId: string): Promise<PostedFinding[]> {
    return this.db.select().from(postedFindings).where(eq(postedFindings.pullRequestId, pullRequestId));
  }

  async recordPosted(rows: Array<typeof postedFindings.$inferInsert>): Promise<void> {
    if (rows.length === 0) return;
    await this.db.insert(postedFindings).values(rows).onConflictDoNothing();
  }

  async markResolved(pullRequestId: string, findingIds: string[]): Promise<void> {
    if (findingIds.length === 0) return;
    await this.db
      .update(postedFindings)
      .set({ resolvedAt: new Date() })
      .where(and(eq(postedFindings.pullRequestId, pullRequestId), inArray(postedFindings.findingId, findingIds), isNull(postedFindings.resolvedAt)));
  }

  /** The finding an inline comment of the App carries, with its pull request: a reply to it is a verdict (decisions.md §10). */
  /** The finding whose thread a note opened, in that pull request (GitLab's note ids are their own number space). */
  async findingOfThread(pullRequestId: string, commentId: number): Promise<PostedFinding | undefined> {
    const [row] = await this.db
      .select()
      .from(postedFindings)
      .where(and(eq(postedFindings.pullRequestId, pullRequestId), eq(postedFindings.commentId, commentId)))
      .limit(1);
    return row;
  }

  async findingOfComment(commentId: number): Promise<{ posted: PostedFinding; pr: PullRequest } | undefined> {
    const [row] = await this.db
      .select({ posted: postedFindings, pr: pullRequests })
      .from(postedFindings)
      .innerJoin(pullRequests, eq(pullRequests.id, postedFindings.pullRequestId))
      .where(eq(postedFindings.commentId, commentId))
      .limit(1);
    return row;
  }
}
