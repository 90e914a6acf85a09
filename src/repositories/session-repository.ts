import { and, desc, eq, gt, isNull, ne, or } from 'drizzle-orm';
import type { Database, Executor } from '../db/database.js';
import { sessions, type Session } from '../db/schema/index.js';

export type NewSession = typeof sessions.$inferInsert;

const notExpired = () => or(isNull(sessions.expiresAt), gt(sessions.expiresAt, new Date()));

export class SessionRepository {
  constructor(private readonly db: Database) {}

  async create(values: NewSession): Promise<Session> {
    const [session] = await this.db.insert(sessions).values(values).returning();
    return session!;
  }

  async findActive(id: string): Promise<Session | undefined> {
    const [session] = await this.db
      .select()
      .from(sessions)
      .where(and(eq(sessions.id, id), notExpired()))
      .limit(1);
    return session;
  }

  listActiveForUser(userId: string): Promise<Session[]> {
    return this.db
      .select()
      .from(sessions)
      .where(and(eq(sessions.userId, userId), notExpired()))
      .orderBy(desc(sessions.createdAt));
  }

  async listIdsForUser(userId: string, executor: Executor = this.db): Promise<string[]> {
    const rows = await executor.select({ id: sessions.id }).from(sessions).where(eq(sessions.userId, userId));
    return rows.map((row) => row.id);
  }

  async delete(id: string): Promise<void> {
    await this.db.delete(sessions).where(eq(sessions.id, id));
  }

  /** Deletes the user's sessions but `keepId`, returning their ids so the cache can drop them too. */
  async deleteForUser(userId: string, keepId?: string): Promise<string[]> {
    const rows = await this.db
      .delete(sessions)
      .where(and(eq(sessions.userId, userId), keepId === undefined ? undefined : ne(sessions.id, keepId)))
      .returning({ id: sessions.id });
    return rows.map((row) => row.id);
  }
}
