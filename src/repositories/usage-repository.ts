import { eq, sql } from 'drizzle-orm';
import type { Database } from '../db/database.js';
import { usage, type Usage } from '../db/schema/index.js';

export class UsageRepository {
  constructor(private readonly db: Database) {}

  /** The usage row is created on first read. */
  async getOrCreate(userId: string): Promise<Usage> {
    await this.db.insert(usage).values({ userId }).onConflictDoNothing();
    const [row] = await this.db.select().from(usage).where(eq(usage.userId, userId)).limit(1);
    return row!;
  }

  async totalCost(userId: string): Promise<number> {
    const [row] = await this.db
      .select({ total: sql<string>`${usage.inputCost} + ${usage.outputCost}` })
      .from(usage)
      .where(eq(usage.userId, userId))
      .limit(1);
    return row === undefined ? 0 : Number(row.total);
  }
}
