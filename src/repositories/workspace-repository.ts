import { eq } from 'drizzle-orm';
import type { Database } from '../db/database.js';
import { workspaceSettings, type WorkspaceSettings } from '../db/schema/index.js';

export type WorkspaceFields = Partial<
  Pick<WorkspaceSettings, 'quickModeModel' | 'focusedModeModel' | 'deepModeModel' | 'systemPrompt' | 'quickModePrompt' | 'foucsedModePrompt' | 'deepModePrompt'>
>;

export class WorkspaceRepository {
  constructor(private readonly db: Database) {}

  async find(userId: string): Promise<WorkspaceSettings | undefined> {
    const [row] = await this.db.select().from(workspaceSettings).where(eq(workspaceSettings.userId, userId)).limit(1);
    return row;
  }

  /** False when the user already has settings. */
  async create(userId: string, fields: WorkspaceFields): Promise<boolean> {
    const rows = await this.db.insert(workspaceSettings).values({ userId, ...fields }).onConflictDoNothing().returning({ id: workspaceSettings.id });
    return rows.length > 0;
  }

  /** Changes only the fields given, creating the record if there is none. */
  async patch(userId: string, fields: WorkspaceFields): Promise<void> {
    await this.db
      .insert(workspaceSettings)
      .values({ userId, ...fields })
      .onConflictDoUpdate({ target: workspaceSettings.userId, set: { ...fields, updatedAt: new Date() } });
  }
}
