import { eq, sql } from 'drizzle-orm';
import type { Database } from '../db/database.js';
import { usage, type Usage } from '../db/schema/index.js';

export interface UsageIncrement {
  inputCost: number;
  outputCost: number;
  inputTokens: number;
  cachedInputTokens: number;
  outputTokens: number;
  reasoningTokens: number;
}

export class UsageRepository {
  constructor(private readonly db: Database) {}

  /** The usage row is created on first read. */
  async getOrCreate(userId: string): Promise<Usage> {
    await this.db.insert(usage).values({ userId }).onConflictDoNothing();
    const [row] = await this.db.select().from(usage).where(eq(usage.userId, userId)).limit(1);
    return row!;
  }

  /**
   * Adds to the counters in one statement: concurrent generations each add their own share, none
   * read-modify-writes, so no increment is lost.
   */
  async add(userId: string, increment: UsageIncrement): Promise<void> {
    await this.db
      .insert(usage)
      .values({ userId, ...increment })
      .onConflictDoUpdate({
        target: usage.userId,
        set: {
          inputCost: sql`${usage.inputCost} + excluded.input_cost`,
          outputCost: sql`${usage.outputCost} + excluded.output_cost`,
          inputTokens: sql`${usage.inputTokens} + excluded.input_tokens`,
          cachedInputTokens: sql`${usage.cachedInputTokens} + excluded.cached_input_tokens`,
          outputTokens: sql`${usage.outputTokens} + excluded.output_tokens`,
          reasoningTokens: sql`${usage.reasoningTokens} + excluded.reasoning_tokens`,
          updatedAt: new Date(),
        },
      });
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
