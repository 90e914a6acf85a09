import { and, asc, eq, inArray, isNull, or, sql } from 'drizzle-orm';
import type { Database, Executor } from '../../db/database.js';
import { firstHeir } from '../../db/first-heir.js';
import { organizationMembers, pullRequests } from '../../db/schema/index.js';
import { feedbackFollows } from '../../repositories/finding-feedback-repository.js';
import { quietly } from '../../repositories/pull-request-repository.js';
import { gitlabConnections, gitlabMergeRequests, type GitLabConnection } from './gitlab-tables.js';

export type NewGitLabConnection = typeof gitlabConnections.$inferInsert;

/** Users' GitLab connections; owner-scoped queries find nothing of another user's. */
export class GitLabConnectionRepository {
  constructor(private readonly db: Database) {}

  /** The connections the user sees: personal ones and their organizations' (decisions.md §15). */
  listForUser(userId: string): Promise<GitLabConnection[]> {
    const orgs = this.db.select({ orgId: organizationMembers.orgId }).from(organizationMembers).where(eq(organizationMembers.userId, userId));
    return this.db
      .select()
      .from(gitlabConnections)
      .where(or(and(eq(gitlabConnections.userId, userId), isNull(gitlabConnections.orgId)), inArray(gitlabConnections.orgId, orgs)))
      .orderBy(asc(gitlabConnections.createdAt), asc(gitlabConnections.id));
  }

  /** The connection, locked for a move. */
  async lock(id: string, tx: Executor): Promise<GitLabConnection | undefined> {
    const [row] = await tx.select().from(gitlabConnections).where(eq(gitlabConnections.id, id)).for('update');
    return row;
  }

  /**
   * Moves the connection into `orgId`, or out of its organization into `userId`'s personal space,
   * with the merge requests that came through it.
   */
  async move(id: string, orgId: string | null, userId: string, tx: Executor): Promise<void> {
    await tx
      .update(gitlabConnections)
      .set({ orgId, ...(orgId === null ? { userId } : {}), updatedAt: new Date() })
      .where(eq(gitlabConnections.id, id));
    const keys = tx.select({ prId: gitlabMergeRequests.prId }).from(gitlabMergeRequests).where(eq(gitlabMergeRequests.connectionId, id));
    // Out of an organization, its pull requests are the new personal owner's, as the connection is.
    await tx.update(pullRequests).set(quietly({ orgId, ...(orgId === null ? { userId } : {}) })).where(inArray(pullRequests.prId, keys));
    await feedbackFollows(tx, inArray(pullRequests.prId, keys));
  }

  /** An organization's deletion hands its connections back to the deleting owner's personal space. */
  async returnToUser(orgId: string, userId: string, tx: Executor): Promise<void> {
    await tx.update(gitlabConnections).set({ orgId: null, userId, updatedAt: new Date() }).where(eq(gitlabConnections.orgId, orgId));
  }

  /**
   * A member leaving the organization hands its connections held in their name to the first heir who
   * has no connection of that project (one per user and project); with none, the connection stays
   * theirs (decisions.md §15).
   */
  async handOver(orgId: string, leavingUserId: string, heirs: readonly string[], tx: Executor): Promise<void> {
    const heir = firstHeir(heirs, (id) => sql`select 1 from gitlab_connections d where d.user_id = ${id} and d.base_url = c.base_url and d.project_id = c.project_id`, sql`c.user_id`);
    await tx.execute(sql`update gitlab_connections c set user_id = ${heir}, updated_at = now() where c.org_id = ${orgId} and c.user_id = ${leavingUserId}`);
  }

  async find(id: string): Promise<GitLabConnection | undefined> {
    const [row] = await this.db.select().from(gitlabConnections).where(eq(gitlabConnections.id, id)).limit(1);
    return row;
  }

  async findForProject(userId: string, baseUrl: string, projectId: number): Promise<GitLabConnection | undefined> {
    const [row] = await this.db
      .select()
      .from(gitlabConnections)
      .where(and(eq(gitlabConnections.userId, userId), eq(gitlabConnections.baseUrl, baseUrl), eq(gitlabConnections.projectId, projectId)))
      .limit(1);
    return row;
  }

  /** Every connection of a GitLab project id, across users and instances (a webhook delivery names only the id). */
  listForProjectId(projectId: number): Promise<GitLabConnection[]> {
    return this.db.select().from(gitlabConnections).where(eq(gitlabConnections.projectId, projectId));
  }

  async create(values: NewGitLabConnection): Promise<GitLabConnection> {
    const [row] = await this.db.insert(gitlabConnections).values(values).returning();
    return row!;
  }

  async setStatus(id: string, status: { status: 'active' | 'broken'; brokenReason: string | null }): Promise<void> {
    await this.db
      .update(gitlabConnections)
      .set({ ...status, brokenAt: status.status === 'broken' ? new Date() : null })
      .where(eq(gitlabConnections.id, id));
  }

  /** Removes the connection; who may is the service's to check. */
  async delete(id: string): Promise<void> {
    await this.db.delete(gitlabConnections).where(eq(gitlabConnections.id, id));
  }
}
