import type { Mailer } from '../adapters/mail/mailer.js';
import type { Database } from '../db/database.js';
import type { OrganizationInvitation, OrgRole } from '../db/schema/index.js';
import { AppError } from '../lib/app-error.js';
import { randomHex, sha256Hex } from '../lib/crypto/tokens.js';
import { isUuid } from '../lib/ids.js';
import type { Logger } from '../lib/logger.js';
import type { InvitationRepository } from '../repositories/invitation-repository.js';
import type { OrganizationRepository } from '../repositories/organization-repository.js';
import type { UserRepository } from '../repositories/user-repository.js';
import type { AuditLog } from './audit-log.js';
import { invitationEmail } from './invitation-emails.js';
import type { OrgAccess } from './org-access.js';
import { toOrganization } from './organization-service.js';

export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;
const TOKEN = /^[0-9a-f]{64}$/;

const toInvitation = (row: OrganizationInvitation) => ({ id: row.id, email: row.email, role: row.role, expiresAt: row.expiresAt.toISOString() });

const unknownInvitation = () => new AppError('NOT_FOUND', 'This invitation does not exist, was revoked, or was already used');

/**
 * Invitations by email (decisions.md §15): a 32-byte token sent once in the email and stored as
 * its SHA-256, valid 7 days, spent by the one acceptance that matches the invited, verified address.
 */
export class InvitationService {
  constructor(
    private readonly deps: {
      db: Database;
      invitations: InvitationRepository;
      organizations: OrganizationRepository;
      users: UserRepository;
      access: OrgAccess;
      audit: AuditLog;
      mailer: Mailer;
      publicUrl: string;
      log: Logger;
    },
  ) {}

  /** Admin+; only owners invite owners. A new invitation to an address replaces its pending one. */
  async invite(orgId: string, actorId: string, input: { email: string; role: OrgRole }) {
    const actorRole = await this.deps.access.require(orgId, actorId, 'admin');
    if (input.role === 'owner' && actorRole !== 'owner') throw new AppError('FORBIDDEN', 'Only an owner can invite an owner');
    if (await this.deps.organizations.isMemberByEmail(orgId, input.email)) throw new AppError('CONFLICT', 'This person is already a member');
    const [actor, org] = await Promise.all([this.deps.users.findById(actorId), this.deps.organizations.findForMember(orgId, actorId)]);
    if (actor === undefined || org === undefined) throw new AppError('UNAUTHORIZED', 'Session expired');
    const token = randomHex(32);
    // The email is sent inside the transaction: an invitation nobody received is never left behind.
    return this.deps.db.transaction(async (tx) => {
      const replaced = await this.deps.invitations.revokePendingTo(orgId, input.email, tx);
      const invitation = await this.deps.invitations.create(
        { orgId, email: input.email, role: input.role, tokenHash: sha256Hex(token), invitedBy: actorId, expiresAt: new Date(Date.now() + INVITATION_TTL_MS) },
        tx,
      );
      const details = { invitationId: invitation.id, role: input.role, ...(replaced.length > 0 && { replaces: replaced }) };
      await this.deps.audit.record(orgId, { userId: actorId, name: actor.name }, [{ action: 'member.invited', target: input.email, details }], tx);
      const url = `${this.deps.publicUrl}/invitations/${token}`;
      try {
        await this.deps.mailer.send(invitationEmail({ to: input.email, inviterName: actor.name, orgName: org.name, role: input.role, url }));
      } catch (error) {
        this.deps.log.error({ err: error }, 'could not send an invitation');
        throw new AppError('UNAVAILABLE', 'The invitation email could not be sent; try again shortly');
      }
      return toInvitation(invitation);
    });
  }

  /** Admin+: the invitations neither accepted, revoked nor expired. */
  async pending(orgId: string, actorId: string) {
    await this.deps.access.require(orgId, actorId, 'admin');
    return (await this.deps.invitations.listPending(orgId)).map(toInvitation);
  }

  /** Admin+; an invitation to be an owner is an owner's to revoke. */
  async revoke(orgId: string, actorId: string, invitationId: string): Promise<void> {
    const actorRole = await this.deps.access.require(orgId, actorId, 'admin');
    const invitation = isUuid(invitationId) ? await this.deps.invitations.findPending(orgId, invitationId) : undefined;
    if (invitation === undefined) throw new AppError('NOT_FOUND', 'No pending invitation with this id');
    if (invitation.role === 'owner' && actorRole !== 'owner') throw new AppError('FORBIDDEN', 'Only an owner can revoke an invitation to be an owner');
    const actor = await this.deps.users.findById(actorId);
    await this.deps.db.transaction(async (tx) => {
      if (!(await this.deps.invitations.revoke(invitation.id, tx))) throw new AppError('NOT_FOUND', 'No pending invitation with this id');
      await this.deps.audit.record(
        orgId,
        { userId: actorId, name: actor?.name ?? '' },
        [{ action: 'invitation.revoked', target: invitation.email, details: { invitationId: invitation.id, role: invitation.role } }],
        tx,
      );
    });
  }

  /** What the invitation page shows; the token is the credential, no session needed. */
  async preview(token: string) {
    const invitation = await this.usable(token);
    return { orgName: invitation.orgName, role: invitation.role, email: invitation.email, expiresAt: invitation.expiresAt.toISOString() };
  }

  /** Joins with the invited role when the caller's verified email is the invited one. */
  async accept(token: string, userId: string) {
    const invitation = await this.usable(token);
    const user = await this.deps.users.findById(userId);
    if (user === undefined) throw new AppError('UNAUTHORIZED', 'Session expired');
    if (user.email !== invitation.email) throw new AppError('FORBIDDEN', 'This invitation is for another email address: sign in with the account it was sent to');
    if (!user.emailVerified) throw new AppError('FORBIDDEN', 'Your email address is not verified, so it cannot accept this invitation');
    return this.deps.db.transaction(async (tx) => {
      await this.deps.organizations.lock(invitation.orgId, tx);
      if ((await this.deps.organizations.roleOf(invitation.orgId, userId, tx)) !== undefined) throw new AppError('CONFLICT', `You are already a member of ${invitation.orgName}`);
      if (!(await this.deps.invitations.accept(invitation.id, userId, tx))) throw unknownInvitation();
      await this.deps.organizations.addMember({ orgId: invitation.orgId, userId, role: invitation.role }, tx);
      await this.deps.audit.record(
        invitation.orgId,
        { userId, name: user.name },
        [{ action: 'member.joined', target: user.email, details: { userId, role: invitation.role, invitationId: invitation.id } }],
        tx,
      );
      const org = await this.deps.organizations.findForMember(invitation.orgId, userId, tx);
      return toOrganization(org!);
    });
  }

  /** 404 for a token that names nothing, or an invitation revoked or used; 410 once expired. */
  private async usable(token: string) {
    const invitation = TOKEN.test(token) ? await this.deps.invitations.findByTokenHash(sha256Hex(token)) : undefined;
    if (invitation === undefined || invitation.acceptedAt !== null || invitation.revokedAt !== null) throw unknownInvitation();
    if (invitation.expiresAt.getTime() <= Date.now()) throw new AppError('GONE', 'This invitation has expired: ask for a new one');
    return invitation;
  }
}
