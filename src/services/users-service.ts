import type { KeyValueStore } from '../adapters/kv/key-value-store.js';
import type { Database } from '../db/database.js';
import { isUniqueViolation } from '../db/errors.js';
import { AppError } from '../lib/app-error.js';
import type { SessionRepository } from '../repositories/session-repository.js';
import type { UserChanges, UserRepository } from '../repositories/user-repository.js';
import { byokCacheKey } from '../ai/byok-directory.js';
import type { SessionService } from './session-service.js';

export class UsersService {
  constructor(
    private readonly deps: {
      db: Database;
      users: UserRepository;
      sessionRecords: SessionRepository;
      sessions: SessionService;
      kv: KeyValueStore;
    },
  ) {}

  async profile(userId: string) {
    const user = await this.deps.users.findById(userId);
    if (user === undefined) throw new AppError('UNAUTHORIZED', 'Session expired');
    const { id, name, email, emailNotification, loginMethod, codehostUsername, createdAt } = user;
    return { id, name, email, emailNotification, loginMethod, codehostUsername, createdAt: createdAt.toISOString() };
  }

  async update(userId: string, changes: Pick<UserChanges, 'name' | 'email' | 'emailNotification'>) {
    try {
      const user = await this.deps.users.update(userId, changes);
      if (user === undefined) throw new AppError('UNAUTHORIZED', 'Session expired');
      return { id: user.id, name: user.name, email: user.email, emailNotification: user.emailNotification };
    } catch (error) {
      if (isUniqueViolation(error)) throw new AppError('CONFLICT', 'Another account uses this email');
      throw error;
    }
  }

  /**
   * One statement in one transaction: every table that holds the user's data references the user
   * with ON DELETE CASCADE. Then the cache entries go.
   */
  async delete(userId: string): Promise<void> {
    const sessionIds = await this.deps.db.transaction(async (tx) => {
      const ids = await this.deps.sessionRecords.listIdsForUser(userId, tx);
      await this.deps.users.delete(userId, tx);
      return ids;
    });
    await this.deps.sessions.uncache(sessionIds);
    await this.deps.kv.delete(byokCacheKey(userId)).catch(() => undefined);
  }
}
