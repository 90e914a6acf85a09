import { and, eq } from 'drizzle-orm';
import type { Database } from '../../db/database.js';
import { gitlabConnections, gitlabMergeRequests, type GitLabConnection } from './gitlab-tables.js';

/** Which merge request of which connection a pull request row is (`gitlab_merge_requests`). */
export class GitLabMergeRequestRepository {
  constructor(private readonly db: Database) {}

  /** The internal `pr_id` of a connection's merge request, allocated on its first delivery (concurrent first deliveries agree). */
  async prIdOf(connectionId: string, iid: number): Promise<number> {
    const [inserted] = await this.db.insert(gitlabMergeRequests).values({ connectionId, iid }).onConflictDoNothing().returning({ prId: gitlabMergeRequests.prId });
    if (inserted !== undefined) return inserted.prId;
    const [existing] = await this.db
      .select({ prId: gitlabMergeRequests.prId })
      .from(gitlabMergeRequests)
      .where(and(eq(gitlabMergeRequests.connectionId, connectionId), eq(gitlabMergeRequests.iid, iid)))
      .limit(1);
    return existing!.prId;
  }

  /** The connection a merge request's row came through; undefined once it was disconnected. */
  async connectionOf(prId: number): Promise<GitLabConnection | undefined> {
    const [row] = await this.db
      .select({ connection: gitlabConnections })
      .from(gitlabMergeRequests)
      .innerJoin(gitlabConnections, eq(gitlabConnections.id, gitlabMergeRequests.connectionId))
      .where(eq(gitlabMergeRequests.prId, prId))
      .limit(1);
    return row?.connection;
  }
}
