import { and, asc, eq } from 'drizzle-orm';
import type { Database } from '../db/database.js';
import { gitlabConnections, type GitLabConnection } from '../db/schema/index.js';

export type NewGitLabConnection = typeof gitlabConnections.$inferInsert;

/** Users' GitLab connections; owner-scoped queries find nothing of another user's. */
export class GitLabConnectionRepository {
  constructor(private readonly db: Database) {}

  listForUser(userId: string): Promise<GitLabConnection[]> {
    return this.db.select().from(gitlabConnections).where(eq(gitlabConnections.userId, userId)).orderBy(asc(gitlabConnections.createdAt), asc(gitlabConnections.id));
  }

  async find(id: string): Promise<GitLabConnection | undefined> {
    const [row] = await this.db.select().from(gitlabConnections).where(eq(gitlabConnections.id, id)).limit(1);
    return row;
  }

  async findOwned(userId: string, id: string): Promise<GitLabConnection | undefined> {
    const [row] = await this.db
      .select()
      .from(gitlabConnections)
      .where(and(eq(gitlabConnections.userId, userId), eq(gitlabConnections.id, id)))
      .limit(1);
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

  async delete(userId: string, id: string): Promise<boolean> {
    const rows = await this.db
      .delete(gitlabConnections)
      .where(and(eq(gitlabConnections.userId, userId), eq(gitlabConnections.id, id)))
      .returning({ id: gitlabConnections.id });
    return rows.length > 0;
  }
}
