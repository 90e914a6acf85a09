import { and, desc, eq, lt, sql } from 'drizzle-orm';
import type { Database, Executor } from '../db/database.js';
import { auditEvents, users, type AuditAction } from '../db/schema/index.js';

export interface NewAuditEvent {
  orgId: string;
  actorUserId: string | null;
  actorName: string;
  action: AuditAction;
  target: string;
  details: Record<string, unknown>;
}

export interface AuditRow {
  id: number;
  at: Date;
  actorUserId: string | null;
  actorName: string;
  action: AuditAction;
  target: string;
  details: Record<string, unknown>;
}

export class AuditRepository {
  constructor(private readonly db: Database) {}

  /** Written in the transaction of the change it records: both commit or neither. */
  async record(events: NewAuditEvent[], executor: Executor): Promise<void> {
    if (events.length > 0) await executor.insert(auditEvents).values(events);
  }

  /** Newest first, `limit` entries older than the cursor (an entry's id). The actor's current name when the account still exists. */
  async page(orgId: string, before: number | undefined, limit: number): Promise<AuditRow[]> {
    return this.db
      .select({
        id: auditEvents.id,
        at: auditEvents.at,
        actorUserId: auditEvents.actorUserId,
        actorName: sql<string>`coalesce(${users.name}, ${auditEvents.actorName})`,
        action: auditEvents.action,
        target: auditEvents.target,
        details: auditEvents.details,
      })
      .from(auditEvents)
      .leftJoin(users, eq(users.id, auditEvents.actorUserId))
      .where(and(eq(auditEvents.orgId, orgId), before === undefined ? undefined : lt(auditEvents.id, before)))
      .orderBy(desc(auditEvents.id))
      .limit(limit);
  }
}
