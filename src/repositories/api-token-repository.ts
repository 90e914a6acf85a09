import { and, count, desc, eq, gt, isNull, lt, lte, or } from 'drizzle-orm';
import type { Database, Executor } from '../db/database.js';
import { apiTokens, users, type ApiToken } from '../db/schema/index.js';

export type NewApiToken = typeof apiTokens.$inferInsert;

export class ApiTokenRepository {
  constructor(private readonly db: Database) {}

  /**
   * Inserts the token unless the user already holds `limit` unexpired ones (then undefined). The
   * user's row is locked so two requests at once cannot both pass the count; the user's expired
   * tokens go in the same step, so the table keeps only what can still be used.
   */
  async createWithinLimit(values: NewApiToken, limit: number): Promise<ApiToken | undefined> {
    return this.db.transaction(async (tx) => {
      await tx.select({ id: users.id }).from(users).where(eq(users.id, values.userId)).for('update');
      const now = new Date();
      await tx.delete(apiTokens).where(and(eq(apiTokens.userId, values.userId), lte(apiTokens.expiresAt, now)));
      const [held] = await tx.select({ n: count() }).from(apiTokens).where(eq(apiTokens.userId, values.userId));
      if ((held?.n ?? 0) >= limit) return undefined;
      const [token] = await tx.insert(apiTokens).values(values).returning();
      return token!;
    });
  }

  async findActiveByHash(tokenHash: string): Promise<ApiToken | undefined> {
    const [token] = await this.db
      .select()
      .from(apiTokens)
      .where(and(eq(apiTokens.tokenHash, tokenHash), gt(apiTokens.expiresAt, new Date())))
      .limit(1);
    return token;
  }

  listActiveForUser(userId: string): Promise<ApiToken[]> {
    return this.db
      .select()
      .from(apiTokens)
      .where(and(eq(apiTokens.userId, userId), gt(apiTokens.expiresAt, new Date())))
      .orderBy(desc(apiTokens.createdAt), desc(apiTokens.id));
  }

  /** Deletes the user's token `id`, returning its hash (undefined when the user holds no such token). */
  async delete(userId: string, id: string): Promise<string | undefined> {
    const [row] = await this.db
      .delete(apiTokens)
      .where(and(eq(apiTokens.id, id), eq(apiTokens.userId, userId)))
      .returning({ tokenHash: apiTokens.tokenHash });
    return row?.tokenHash;
  }

  /** Deletes every token of the user, returning their hashes so the cache can drop them too. */
  async deleteForUser(userId: string, executor: Executor = this.db): Promise<string[]> {
    const rows = await executor.delete(apiTokens).where(eq(apiTokens.userId, userId)).returning({ tokenHash: apiTokens.tokenHash });
    return rows.map((row) => row.tokenHash);
  }

  async listHashesForUser(userId: string, executor: Executor = this.db): Promise<string[]> {
    const rows = await executor.select({ tokenHash: apiTokens.tokenHash }).from(apiTokens).where(eq(apiTokens.userId, userId));
    return rows.map((row) => row.tokenHash);
  }

  /**
   * Moves `lastUsedAt` to `at` unless it moved within the last `intervalMs`: the condition keeps
   * the once-a-minute rule when several processes use the same token.
   */
  async touch(id: string, at: Date, intervalMs: number): Promise<void> {
    await this.db
      .update(apiTokens)
      .set({ lastUsedAt: at })
      .where(and(eq(apiTokens.id, id), or(isNull(apiTokens.lastUsedAt), lt(apiTokens.lastUsedAt, new Date(at.getTime() - intervalMs)))));
  }
}
