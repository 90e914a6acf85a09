import { and, asc, eq } from 'drizzle-orm';
import type { Database } from '../db/database.js';
import { byokProviders, type ByokProvider } from '../db/schema/index.js';

export type NewByokProvider = typeof byokProviders.$inferInsert;
export type ByokProviderChanges = Partial<Pick<ByokProvider, 'modelProviderName' | 'apiKey' | 'customModels' | 'customBaseUrl' | 'enabled' | 'availableModels'>>;

/** A user's provider keys; every query is scoped to the owner, so another user's id finds nothing. */
export class ByokProviderRepository {
  constructor(private readonly db: Database) {}

  listForUser(userId: string): Promise<ByokProvider[]> {
    return this.db.select().from(byokProviders).where(eq(byokProviders.userId, userId)).orderBy(asc(byokProviders.createdAt), asc(byokProviders.id));
  }

  async findOwned(userId: string, id: string): Promise<ByokProvider | undefined> {
    const [row] = await this.db
      .select()
      .from(byokProviders)
      .where(and(eq(byokProviders.userId, userId), eq(byokProviders.id, id)))
      .limit(1);
    return row;
  }

  async findByName(userId: string, modelProviderName: string): Promise<ByokProvider | undefined> {
    const [row] = await this.db
      .select()
      .from(byokProviders)
      .where(and(eq(byokProviders.userId, userId), eq(byokProviders.modelProviderName, modelProviderName)))
      .limit(1);
    return row;
  }

  async create(values: NewByokProvider): Promise<ByokProvider> {
    const [row] = await this.db.insert(byokProviders).values(values).returning();
    return row!;
  }

  async update(userId: string, id: string, changes: ByokProviderChanges): Promise<ByokProvider | undefined> {
    const [row] = await this.db
      .update(byokProviders)
      .set(changes)
      .where(and(eq(byokProviders.userId, userId), eq(byokProviders.id, id)))
      .returning();
    return row;
  }

  async delete(userId: string, id: string): Promise<boolean> {
    const rows = await this.db
      .delete(byokProviders)
      .where(and(eq(byokProviders.userId, userId), eq(byokProviders.id, id)))
      .returning({ id: byokProviders.id });
    return rows.length > 0;
  }
}
