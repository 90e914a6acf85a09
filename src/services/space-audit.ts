import type { Database } from '../db/database.js';
import type { Owner } from '../domain/owners.js';
import type { UserRepository } from '../repositories/user-repository.js';
import type { AuditEntry, AuditLog } from './audit-log.js';

/** The caller acting on a space's settings and keys: their own, or an organization's (decisions.md §15). */
export interface Space {
  owner: Owner;
  /** Who acts: the actor of the organization's audit entries. */
  userId: string;
}

/**
 * The audit entries of a change to a space's settings or keys: an organization's go in its audit
 * log, a personal space keeps none. Written after the change it records (the change is one
 * statement of its own); `details` name what changed, never a key.
 */
export class SpaceAudit {
  constructor(private readonly deps: { db: Database; audit: AuditLog; users: UserRepository }) {}

  async record(space: Space, entries: AuditEntry[]): Promise<void> {
    if (space.owner.kind !== 'org' || entries.length === 0) return;
    const user = await this.deps.users.findById(space.userId);
    await this.deps.audit.record(space.owner.id, { userId: space.userId, name: user?.name ?? '' }, entries, this.deps.db);
  }
}
