import { and, desc, eq, gt, isNull } from 'drizzle-orm';
import type { Database, Executor } from '../db/database.js';
import { organizationInvitations, organizations, type OrganizationInvitation } from '../db/schema/index.js';

export type NewInvitation = Pick<OrganizationInvitation, 'orgId' | 'email' | 'role' | 'tokenHash' | 'invitedBy' | 'expiresAt'>;

const pending = (now: Date) => and(isNull(organizationInvitations.acceptedAt), isNull(organizationInvitations.revokedAt), gt(organizationInvitations.expiresAt, now));

export class InvitationRepository {
  constructor(private readonly db: Database) {}

  async create(values: NewInvitation, executor: Executor = this.db): Promise<OrganizationInvitation> {
    const [row] = await executor.insert(organizationInvitations).values(values).returning();
    return row!;
  }

  /** Pending ones: neither accepted, revoked nor expired; newest first. */
  async listPending(orgId: string, now = new Date()): Promise<OrganizationInvitation[]> {
    return this.db
      .select()
      .from(organizationInvitations)
      .where(and(eq(organizationInvitations.orgId, orgId), pending(now)))
      .orderBy(desc(organizationInvitations.createdAt), desc(organizationInvitations.id));
  }

  async findPending(orgId: string, id: string, now = new Date()): Promise<OrganizationInvitation | undefined> {
    const [row] = await this.db
      .select()
      .from(organizationInvitations)
      .where(and(eq(organizationInvitations.orgId, orgId), eq(organizationInvitations.id, id), pending(now)))
      .limit(1);
    return row;
  }

  /** The invitation a token names, whatever its state, with its organization's name. */
  async findByTokenHash(tokenHash: string, executor: Executor = this.db): Promise<(OrganizationInvitation & { orgName: string }) | undefined> {
    const [row] = await executor
      .select({ invitation: organizationInvitations, orgName: organizations.name })
      .from(organizationInvitations)
      .innerJoin(organizations, eq(organizations.id, organizationInvitations.orgId))
      .where(eq(organizationInvitations.tokenHash, tokenHash))
      .limit(1);
    return row && { ...row.invitation, orgName: row.orgName };
  }

  /** Revokes the pending invitations to an address (a new one replaces them); their ids. */
  async revokePendingTo(orgId: string, email: string, executor: Executor): Promise<string[]> {
    const now = new Date();
    const rows = await executor
      .update(organizationInvitations)
      .set({ revokedAt: now })
      .where(and(eq(organizationInvitations.orgId, orgId), eq(organizationInvitations.email, email), pending(now)))
      .returning({ id: organizationInvitations.id });
    return rows.map((row) => row.id);
  }

  /** False when it was no longer pending: a second revoke or accept loses the race. */
  async revoke(id: string, executor: Executor = this.db): Promise<boolean> {
    const now = new Date();
    const rows = await executor
      .update(organizationInvitations)
      .set({ revokedAt: now })
      .where(and(eq(organizationInvitations.id, id), pending(now)))
      .returning({ id: organizationInvitations.id });
    return rows.length > 0;
  }

  /** Spends the invitation once: false when it was accepted, revoked or expired meanwhile. */
  async accept(id: string, userId: string, executor: Executor): Promise<boolean> {
    const now = new Date();
    const rows = await executor
      .update(organizationInvitations)
      .set({ acceptedAt: now, acceptedBy: userId })
      .where(and(eq(organizationInvitations.id, id), pending(now)))
      .returning({ id: organizationInvitations.id });
    return rows.length > 0;
  }

  /** Removes an invitation that was never delivered (its email failed). */
  async delete(id: string): Promise<void> {
    await this.db.delete(organizationInvitations).where(eq(organizationInvitations.id, id));
  }
}
