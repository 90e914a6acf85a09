import { personal } from '../domain/owners.js';
import type { KeyValueStore } from '../adapters/kv/key-value-store.js';
import type { Database } from '../db/database.js';
import { isUniqueViolation } from '../db/errors.js';
import { AppError } from '../lib/app-error.js';
import type { ApiTokenRepository } from '../repositories/api-token-repository.js';
import type { SessionRepository } from '../repositories/session-repository.js';
import type { UserChanges, UserRepository } from '../repositories/user-repository.js';
import { byokCacheKey } from '../ai/byok-directory.js';
import type { OrganizationService } from './organization-service.js';
import type { ApiTokenService } from './api-token-service.js';
import type { SessionService } from './session-service.js';

export class UsersService {
  constructor(
    private readonly deps: {
      db: Database;
      users: UserRepository;
      sessionRecords: SessionRepository;
      sessions: SessionService;
      tokenRecords: ApiTokenRepository;
      apiTokens: ApiTokenService;
      kv: KeyValueStore;
      organizations: Pick<OrganizationService, 'beforeAccountDeletion'>;
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
   * One transaction: the organizations the user is alone in go first (409 while the only owner of
   * one with others, decisions.md §15); then one statement, every table that holds the user's data
   * referencing the user with ON DELETE CASCADE. Then the cache entries go.
   */
  async delete(userId: string): Promise<void> {
    const { sessionIds, tokenHashes } = await this.deps.db.transaction(async (tx) => {
      await this.deps.organizations.beforeAccountDeletion(userId, tx);
      const ids = await this.deps.sessionRecords.listIdsForUser(userId, tx);
      const hashes = await this.deps.tokenRecords.listHashesForUser(userId, tx);
      await this.deps.users.delete(userId, tx);
      return { sessionIds: ids, tokenHashes: hashes };
    });
    await this.deps.sessions.uncache(sessionIds);
    await this.deps.apiTokens.uncache(tokenHashes);
    await this.deps.kv.delete(byokCacheKey(personal(userId))).catch(() => undefined);
  }
}
