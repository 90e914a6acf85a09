import { and, eq, inArray, isNull } from 'drizzle-orm';
import type { Database } from '../db/database.js';
import { githubPostedFindings, githubPublications, pullRequests, type GitHubPostedFinding, type GitHubPublication, type PullRequest } from '../db/schema/index.js';

export type PublicationChanges = Partial<Omit<GitHubPublication, 'pullRequestId' | 'updatedAt'>>;

/** What the App posted on each pull request, and which comment carries which finding. */
export class GitHubPublicationRepository {
  constructor(private readonly db: Database) {}

  async find(pullRequestId: string): Promise<GitHubPublication | undefined> {
    const [row] = await this.db.select().from(githubPublications).where(eq(githubPublications.pullRequestId, pullRequestId)).limit(1);
    return row;
  }

  /** Creates or changes the publication record of a pull request. */
  async save(pullRequestId: string, runId: string, changes: PublicationChanges): Promise<void> {
    await this.db
      .insert(githubPublications)
      .values({ pullRequestId, runId, ...changes })
      .onConflictDoUpdate({ target: githubPublications.pullRequestId, set: { runId, ...changes, updatedAt: new Date() } });
  }

  /** Records the end of a run's publication, unless a later run has taken the record over. */
  async finish(pullRequestId: string, runId: string, changes: PublicationChanges): Promise<void> {
    await this.db
      .update(githubPublications)
      .set({ ...changes, updatedAt: new Date() })
      .where(and(eq(githubPublications.pullRequestId, pullRequestId), eq(githubPublications.runId, runId)));
  }

  postedFindings(pullRequestId: string): Promise<GitHubPostedFinding[]> {
    return this.db.select().from(githubPostedFindings).where(eq(githubPostedFindings.pullRequestId, pullRequestId));
  }

  async recordPosted(rows: Array<typeof githubPostedFindings.$inferInsert>): Promise<void> {
    if (rows.length === 0) return;
    await this.db.insert(githubPostedFindings).values(rows).onConflictDoNothing();
  }

  async markResolved(pullRequestId: string, findingIds: string[]): Promise<void> {
    if (findingIds.length === 0) return;
    await this.db
      .update(githubPostedFindings)
      .set({ resolvedAt: new Date() })
      .where(and(eq(githubPostedFindings.pullRequestId, pullRequestId), inArray(githubPostedFindings.findingId, findingIds), isNull(githubPostedFindings.resolvedAt)));
  }

  /** The finding an inline comment of the App carries, with its pull request: a reply to it is a verdict (decisions.md §10). */
  /** The finding whose thread a note opened, in that pull request (GitLab's note ids are their own number space). */
  async findingOfThread(pullRequestId: string, commentId: number): Promise<GitHubPostedFinding | undefined> {
    const [row] = await this.db
      .select()
      .from(githubPostedFindings)
      .where(and(eq(githubPostedFindings.pullRequestId, pullRequestId), eq(githubPostedFindings.commentId, commentId)))
      .limit(1);
    return row;
  }

  async findingOfComment(commentId: number): Promise<{ posted: GitHubPostedFinding; pr: PullRequest } | undefined> {
    const [row] = await this.db
      .select({ posted: githubPostedFindings, pr: pullRequests })
      .from(githubPostedFindings)
      .innerJoin(pullRequests, eq(pullRequests.id, githubPostedFindings.pullRequestId))
      .where(eq(githubPostedFindings.commentId, commentId))
      .limit(1);
    return row;
  }
}
