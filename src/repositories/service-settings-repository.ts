import { eq } from 'drizzle-orm';
import type { Database } from '../db/database.js';
import { serviceSettings } from '../db/schema/index.js';

export class ServiceSettingsRepository {
  constructor(private readonly db: Database) {}

  /** Sets `name` unless it is set, and returns the value that holds: the first writer's. */
  async claim(name: string, value: string): Promise<string> {
    await this.db.insert(serviceSettings).values({ name, value }).onConflictDoNothing();
    const [row] = await this.db.select({ value: serviceSettings.value }).from(serviceSettings).where(eq(serviceSettings.name, name));
    return row!.value;
  }

  async find(name: string): Promise<string | undefined> {
    const [row] = await this.db.select({ value: serviceSettings.value }).from(serviceSettings).where(eq(serviceSettings.name, name));
    return row?.value;
  }
}
