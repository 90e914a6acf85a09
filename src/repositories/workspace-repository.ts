import type { Database } from '../db/database.js';
import { ownedBy, ownerValues } from '../db/owner-condition.js';
import { workspaceSettings, type WorkspaceSettings } from '../db/schema/index.js';
import type { Owner } from '../domain/owners.js';

export type WorkspaceFields = Partial<
  Pick<WorkspaceSettings, 'quickModeModel' | 'focusedModeModel' | 'deepModeModel' | 'systemPrompt' | 'quickModePrompt' | 'foucsedModePrompt' | 'deepModePrompt'>
>;

/** Review settings, at most one record per user or organization. */
export class WorkspaceRepository {
  constructor(private readonly db: Database) {}

  async find(owner: Owner): Promise<WorkspaceSettings | undefined> {
    const [row] = await this.db.select().from(workspaceSettings).where(ownedBy(workspaceSettings, owner)).limit(1);
    return row;
  }

  /** False when the owner already has settings. */
  async create(owner: Owner, fields: WorkspaceFields): Promise<boolean> {
    const rows = await this.db
      .insert(workspaceSettings)
      .values({ ...ownerValues(owner), ...fields })
      .onConflictDoNothing()
      .returning({ id: workspaceSettings.id });
    return rows.length > 0;
  }

  /** Changes only the fields given, creating the record if there is none. */
  async patch(owner: Owner, fields: WorkspaceFields): Promise<void> {
    await this.db
      .insert(workspaceSettings)
      .values({ ...ownerValues(owner), ...fields })
      .onConflictDoUpdate({ target: owner.kind === 'user' ? workspaceSettings.userId : workspaceSettings.orgId, set: { ...fields, updatedAt: new Date() } });
  }
}
