import type { Executor } from '../db/database.js';
import type { AuditAction } from '../db/schema/index.js';
import { AppError } from '../lib/app-error.js';
import type { AuditRepository } from '../repositories/audit-repository.js';

export { AUDIT_ACTIONS, type AuditAction } from '../db/schema/index.js';

export interface Actor {
  userId: string;
  name: string;
}

/** One entry: `target` names what changed for a person (an email, the organization's name); `details` never holds a secret. */
export interface AuditEntry {
  action: AuditAction;
  target: string;
  details?: Record<string, unknown>;
}

export const AUDIT_PAGE_SIZE = 20;

/** The organization's audit log: written in the transaction of each change, read newest first. */
export class AuditLog {
  constructor(private readonly audit: AuditRepository) {}

  record(orgId: string, actor: Actor | null, entries: AuditEntry[], executor: Executor): Promise<void> {
    return this.audit.record(
      entries.map(({ action, target, details = {} }) => ({ orgId, actorUserId: actor?.userId ?? null, actorName: actor?.name ?? '', action, target, details })),
      executor,
    );
  }

  /** A page of 20, newest first; `nextCursor` (the last entry's id) is null on the last page. */
  async page(orgId: string, cursor: string | undefined) {
    if (cursor !== undefined && !/^\d{1,18}$/.test(cursor)) throw new AppError('BAD_REQUEST', 'cursor must be a nextCursor this list returned', [{ path: 'cursor', message: 'Invalid cursor' }]);
    const rows = await this.audit.page(orgId, cursor === undefined ? undefined : Number(cursor), AUDIT_PAGE_SIZE + 1);
    const items = rows.slice(0, AUDIT_PAGE_SIZE);
    return {
      items: items.map((row) => ({
        at: row.at.toISOString(),
        actor: { userId: row.actorUserId, name: row.actorName },
        action: row.action,
        target: row.target,
        details: row.details,
      })),
      nextCursor: rows.length > AUDIT_PAGE_SIZE ? String(items.at(-1)!.id) : null,
    };
  }
}
