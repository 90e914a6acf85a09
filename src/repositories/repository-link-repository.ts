import type { Database, Executor } from '../db/database.js';
import { repositories } from '../db/schema/index.js';
import { excludedExcept } from './columns.js';

export type RepositoryLinkValues = typeof repositories.$inferInsert;

/** The repositories a user's pull requests come from. */
export class RepositoryLinkRepository {
  constructor(private readonly db: Database) {}

  async upsert(values: RepositoryLinkValues, executor: Executor = this.db): Promise<void> {
    await executor
      .insert(repositories)
      .values(values)
      .onConflictDoUpdate({
        target: [repositories.userId, repositories.repositoryId],
        set: { ...excludedExcept(repositories, 'id', 'userId', 'repositoryId', 'createdAt', 'updatedAt'), updatedAt: new Date() },
      });
  }
}
