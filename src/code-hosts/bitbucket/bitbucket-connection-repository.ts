import { and, asc, eq, inArray, isNull, or, sql } from 'drizzle-orm';
import type { Database, Executor } from '../../db/database.js';
import { firstHeir } from '../../db/first-heir.js';
import { organizationMembers, pullRequests } from '../../db/schema/index.js';
import { bitbucketConnections, bitbucketPullRequests, type BitbucketConnection, type NewBitbucketConnection } from './bitbucket-tables.js';
import { feedbackFollows } from '../../repositories/finding-feedback-repository.js';
import { quietly } from '../../repositories/pull-request-repository.js';

/** Users' Bitbucket connections and the pull requests that came through them; owner-scoped queries find nothing of another user's. */
export class BitbucketConnectionRepository {
  constructor(private readonly db: Database) {}

  /** The connections the user sees: personal ones and their organizations' (decisions.md §15). */
  listForUser(userId: string): Promise<BitbucketConnection[]> {
    const orgs = this.db.select({ orgId: organizationMembers.orgId }).from(organizationMembers).where(eq(organizationMembers.userId, userId));
    return this.db
      .select()
      .from(bitbucketConnections)
      .where(or(and(eq(bitbucketConnections.userId, userId), isNull(bitbucketConnections.orgId)), inArray(bitbucketConnections.orgId, orgs)))
      .orderBy(asc(bitbucketConnections.createdAt), asc(bitbucketConnections.id));
  }

  async find(id: string): Promise<BitbucketConnection | undefined> {
    const [row] = await this.db.select().from(bitbucketConnections).where(eq(bitbucketConnections.id, id)).limit(1);
    return row;
  }

  async findForRepository(userId: string, repositoryUuid: string): Promise<BitbucketConnection | undefined> {
    const [row] = await this.db
      .select()
      .from(bitbucketConnections)
      .where(and(eq(bitbucketConnections.userId, userId), eq(bitbucketConnections.repositoryUuid, repositoryUuid)))
      .limit(1);
    return row;
  }

  /** Every connection of a repository, across users (a delivery names only the repository). */
  listForRepository(repositoryUuid: string): Promise<BitbucketConnection[]> {
    return this.db.select().from(bitbucketConnections).where(eq(bitbucketConnections.repositoryUuid, repositoryUuid));
  }

  async create(values: NewBitbucketConnection): Promise<BitbucketConnection> {
    const [row] = await this.db.insert(bitbucketConnections).values(values).returning();
    return row!;
  }

  async setStatus(id: string, status: { status: 'active' | 'broken'; brokenReason: string | null }): Promise<void> {
    await this.db
      .update(bitbucketConnections)
      .set({ ...status, brokenAt: status.status === 'broken' ? new Date() : null })
      .where(eq(bitbucketConnections.id, id));
  }

  /** The account the service writes as, learned from the first comment it created with an access token. */
  async setAccount(id: string, accountUuid: string): Promise<void> {
    await this.db.update(bitbucketConnections).set({ accountUuid }).where(and(eq(bitbucketConnections.id, id), isNull(bitbucketConnections.accountUuid)));
  }

  async delete(id: string): Promise<void> {
    await this.db.delete(bitbucketConnections).where(eq(bitbucketConnections.id, id));
  }

  /** The connection, locked for a move. */
  async lock(id: string, tx: Executor): Promise<BitbucketConnection | undefined> {
    const [row] = await tx.select().from(bitbucketConnections).where(eq(bitbucketConnections.id, id)).for('update');
    return row;
  }

  /** Moves the connection into `orgId`, or out of its organization into `userId`'s personal space, with the pull requests that came through it. */
  async move(id: string, orgId: string | null, userId: string, tx: Executor): Promise<void> {
    await tx
      .update(bitbucketConnections)
      .set({ orgId, ...(orgId === null ? { userId } : {}), updatedAt: new Date() })
      .where(eq(bitbucketConnections.id, id));
    const keys = tx.select({ prId: bitbucketPullRequests.prId }).from(bitbucketPullRequests).where(eq(bitbucketPullRequests.connectionId, id));
    // Out of an organization, its pull requests are the new personal owner's, as the connection is.
    await tx.update(pullRequests).set(quietly({ orgId, ...(orgId === null ? { userId } : {}) })).where(inArray(pullRequests.prId, keys));
    await feedbackFollows(tx, inArray(pullRequests.prId, keys));
  }

  /**
   * A member leaving the organization hands its connections held in their name to the first heir who
   * has no connection of that repository (one per user and repository); with none, the connection
   * stays theirs (decisions.md §15).
   */
  async handOver(orgId: string, leavingUserId: string, heirs: readonly string[], tx: Executor): Promise<void> {
    const heir = firstHeir(heirs, (id) => sql`select 1 from bitbucket_connections d where d.user_id = ${id} and d.repository_uuid = c.repository_uuid`, sql`c.user_id`);
    await tx.execute(sql`update bitbucket_connections c set user_id = ${heir}, updated_at = now() where c.org_id = ${orgId} and c.user_id = ${leavingUserId}`);
  }

  /** An organization's deletion hands its connections back to the deleting owner's personal space. */
  async returnToUser(orgId: string, userId: string, tx: Executor): Promise<void> {
    await tx.update(bitbucketConnections).set({ orgId: null, userId, updatedAt: new Date() }).where(eq(bitbucketConnections.orgId, orgId));
  }

  /** The internal `pr_id` of a connection's pull request, allocated on its first sight (concurrent first sights agree). */
  async prIdOf(connectionId: string, number: number): Promise<number> {
    const [inserted] = await this.db.insert(bitbucketPullRequests).values({ connectionId, number }).onConflictDoNothing().returning({ prId: bitbucketPullRequests.prId });
    if (inserted !== undefined) return inserted.prId;
    const [existing] = await this.db
      .select({ prId: bitbucketPullRequests.prId })
      .from(bitbucketPullRequests)
      .where(and(eq(bitbucketPullRequests.connectionId, connectionId), eq(bitbucketPullRequests.number, number)))
      .limit(1);
    return existing!.prId;
  }

  /** The connection a pull request's row came through; undefined once it was disconnected. */
  async connectionOf(prId: number): Promise<BitbucketConnection | undefined> {
    const [row] = await this.db
      .select({ connection: bitbucketConnections })
      .from(bitbucketPullRequests)
      .innerJoin(bitbucketConnections, eq(bitbucketConnections.id, bitbucketPullRequests.connectionId))
      .where(eq(bitbucketPullRequests.prId, prId))
      .limit(1);
    return row?.connection;
  }
}
