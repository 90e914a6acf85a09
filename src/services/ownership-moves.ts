import type { Database, Executor } from '../db/database.js';
import type { AuditAction } from '../db/schema/index.js';
import { AppError } from '../lib/app-error.js';
import type { UserRepository } from '../repositories/user-repository.js';
import type { AuditLog } from './audit-log.js';
import type { OrgAccess } from './org-access.js';

/** An installation or a connection as ownership sees it: a personal owner, or an organization (decisions.md §15). */
export interface Owned {
  userId: string | null;
  orgId: string | null;
}

/**
 * Moving an installation or a connection into or out of an organization (decisions.md §15), the
 * same rules for every host: the caller manages it now (its personal owner, or admin+ of its
 * organization) and is admin+ of the target. Someone who cannot see it gets `notFound` (404), as
 * for another user's; a member of its organization below admin gets 403. Each host's service gives
 * the move itself (the row and its pull requests, in the transaction this opens).
 */
export class OwnershipMoves {
  constructor(private readonly deps: { db: Database; access: OrgAccess; audit: AuditLog; users: UserRepository }) {}

  /** Throws unless `userId` manages `item` now. */
  async requireManages(item: Owned | undefined, userId: string, notFound: () => AppError, executor?: Executor): Promise<void> {
    if (item === undefined) throw notFound();
    if (item.orgId === null) {
      if (item.userId !== userId) throw notFound();
      return;
    }
    try {
      await this.deps.access.require(item.orgId, userId, 'admin', executor);
    } catch (error) {
      throw error instanceof AppError && error.code === 'NOT_FOUND' ? notFound() : error;
    }
  }

  /**
   * Checks, then runs `apply` in one transaction with the audit entries of both organizations
   * involved; `reload` reads the item again inside it (locked), so a concurrent move or role change
   * is judged on the truth.
   */
  async move<T extends Owned>(input: {
    userId: string;
    target: string | null;
    action: Extract<AuditAction, 'installation.moved' | 'connection.moved'>;
    /** What the audit entries name it by (an account, a project path). */
    label: (item: T) => string;
    notFound: () => AppError;
    reload: (tx: Executor) => Promise<T | undefined>;
    apply: (tx: Executor, from: T) => Promise<void>;
  }): Promise<void> {
    const { userId, target } = input;
    if (target !== null) await this.deps.access.require(target, userId, 'admin');
    const user = await this.deps.users.findById(userId);
    const actor = { userId, name: user?.name ?? '' };
    await this.deps.db.transaction(async (tx) => {
      const item = await input.reload(tx);
      await this.requireManages(item, userId, input.notFound, tx);
      const to = target?.toLowerCase() ?? null;
      if (to !== null) await this.deps.access.require(to, userId, 'admin', tx);
      if (item!.orgId === to) return;
      await input.apply(tx, item!);
      const details = { from: item!.orgId, to };
      for (const orgId of new Set([item!.orgId, to])) {
        if (orgId !== null) await this.deps.audit.record(orgId, actor, [{ action: input.action, target: input.label(item!), details }], tx);
      }
    });
  }
}
