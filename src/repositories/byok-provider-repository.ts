import { and, asc, eq } from 'drizzle-orm';
import type { Database } from '../db/database.js';
import { ownedBy, ownerValues } from '../db/owner-condition.js';
import { byokProviders, type ByokProvider } from '../db/schema/index.js';
import type { Owner } from '../domain/owners.js';

export type NewByokProvider = typeof byokProviders.$inferInsert;
export type ByokProviderChanges = Partial<Pick<ByokProvider, 'modelProviderName' | 'apiKey' | 'customModels' | 'customBaseUrl' | 'enabled' | 'availableModels'>>;

/** The provider keys of a user or an organization; every query is scoped to the owner, so another owner's id finds nothing. */
export class ByokProviderRepository {
  constructor(private readonly db: Database) {}

  list(owner: Owner): Promise<ByokProvider[]> {
    return this.db.select().from(byokProviders).where(ownedBy(byokProviders, owner)).orderBy(asc(byokProviders.createdAt), asc(byokProviders.id));
  }

  async findOwned(owner: Owner, id: string): Promise<ByokProvider | undefined> {
    const [row] = await this.db
      .select()
      .from(byokProviders)
      .where(and(ownedBy(byokProviders, owner), eq(byokProviders.id, id)))
      .limit(1);
    return row;
  }

  async findByName(owner: Owner, modelProviderName: string): Promise<ByokProvider | undefined> {
    const [row] = await this.db
      .select()
      .from(byokProviders)
      .where(and(ownedBy(byokProviders, owner), eq(byokProviders.modelProviderName, modelProviderName)))
      .limit(1);
    return row;
  }

  async create(owner: Owner, values: Omit<NewByokProvider, 'userId' | 'orgId'>): Promise<ByokProvider> {
    const [row] = await this.db
      .insert(byokProviders)
      .values({ ...ownerValues(owner), ...values })
      .returning();
    return row!;
  }

  async update(owner: Owner, id: string, changes: ByokProviderChanges): Promise<ByokProvider | undefined> {
    const [row] = await this.db
      .update(byokProviders)
      .set(changes)
      .where(and(ownedBy(byokProviders, owner), eq(byokProviders.id, id)))
      .returning();
    return row;
  }

  async delete(owner: Owner, id: string): Promise<boolean> {
    const rows = await this.db
      .delete(byokProviders)
      .where(and(ownedBy(byokProviders, owner), eq(byokProviders.id, id)))
      .returning({ id: byokProviders.id });
    return rows.length > 0;
  }
}
