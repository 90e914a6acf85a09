import type { Database, Executor } from '../db/database.js';
import { isUniqueViolation } from '../db/errors.js';
import type { OrgRole } from '../db/schema/index.js';
import { AppError } from '../lib/app-error.js';
import { isUuid } from '../lib/ids.js';
import type { MemberRow, OrganizationRepository, OrganizationWithRole } from '../repositories/organization-repository.js';
import type { UserRepository } from '../repositories/user-repository.js';
import type { Actor, AuditEntry, AuditLog } from './audit-log.js';
import { noSuchOrganization, type OrgAccess } from './org-access.js';
import { freeSlug, slugBase } from './organization-slug.js';

/**
 * What an organization owns beyond its own tables, deleted (or handed back) in the transaction that
 * deletes it. The next round registers its steps here: the pull requests, reviews and learnings go;
 * installations and connections return to `byUserId`'s personal space; settings, keys and usage go.
 */
export type OrganizationDeletionStep = (orgId: string, byUserId: string, tx: Executor) => Promise<void>;

/**
 * What a member who leaves an organization (removed, leaving, or deleting their account) hands to
 * who stays, in the transaction of the departure: the organization's installations and connections
 * whose personal owner they are (each host's), and its pull requests stored under them. A row's
 * `user_id` cascades or is cleared with its user, so the team's installation or connection would go
 * with one person's account. `heirs` are the other members, owners first, then admins, then
 * members, the longest-standing first: `heirs[0]` takes everything a step can give it.
 */
export type OrganizationDepartureStep = (orgId: string, leavingUserId: string, heirs: readonly string[], tx: Executor) => Promise<void>;

export interface OrganizationChanges {
  name?: string;
  monthlySpendLimitUsd?: number | null;
}

export const toOrganization = (row: OrganizationWithRole) => ({
  id: row.id,
  name: row.name,
  slug: row.slug,
  role: row.role,
  monthlySpendLimitUsd: row.monthlySpendLimitUsd,
  createdAt: row.createdAt.toISOString(),
});

export const toMember = (row: MemberRow) => ({ userId: row.userId, name: row.name, email: row.email, role: row.role, joinedAt: row.joinedAt.toISOString() });

const SLUG_ATTEMPTS = 3;

/** Organizations and their members (decisions.md §15): the rules on roles, the last owner, and the audit entries. */
export class OrganizationService {
  constructor(
    private readonly deps: {
      db: Database;
      organizations: OrganizationRepository;
      users: UserRepository;
      access: OrgAccess;
      audit: AuditLog;
      deletionSteps: OrganizationDeletionStep[];
      departureSteps: OrganizationDepartureStep[];
    },
  ) {}

  async create(userId: string, input: { name: string }) {
    const actor = await this.actor(userId);
    const base = slugBase(input.name);
    // Two creations racing for one slug: the loser picks again.
    for (let attempt = 1; ; attempt++) {
      try {
        const org = await this.deps.db.transaction(async (tx) => {
          const slug = freeSlug(base, await this.deps.organizations.slugsLike(base, tx));
          const created = await this.deps.organizations.create({ name: input.name, slug }, tx);
          await this.deps.organizations.addMember({ orgId: created.id, userId, role: 'owner' }, tx);
          await this.deps.audit.record(created.id, actor, [{ action: 'org.created', target: created.name, details: { slug } }], tx);
          return created;
        });
        return toOrganization({ ...org, role: 'owner' });
      } catch (error) {
        if (!isUniqueViolation(error) || attempt >= SLUG_ATTEMPTS) throw error;
      }
    }
  }

  async list(userId: string) {
    return (await this.deps.organizations.listForUser(userId)).map(toOrganization);
  }

  async get(orgId: string, userId: string, executor?: Executor) {
    if (!isUuid(orgId)) throw noSuchOrganization();
    const row = await this.deps.organizations.findForMember(orgId.toLowerCase(), userId, executor);
    if (row === undefined) throw noSuchOrganization();
    return toOrganization(row);
  }

  /** Renames and sets the spend limit; each real change is one audit entry. */
  async update(orgId: string, userId: string, changes: OrganizationChanges) {
    await this.deps.access.require(orgId, userId, 'admin');
    const actor = await this.actor(userId);
    return this.deps.db.transaction(async (tx) => {
      const org = await this.deps.organizations.lock(orgId, tx);
      // Removed or demoted since the check above: the lock makes this read the truth.
      await this.deps.access.require(orgId, userId, 'admin', tx);
      if (org === undefined) throw noSuchOrganization();
      const entries: AuditEntry[] = [];
      if (changes.name !== undefined && changes.name !== org.name) {
        entries.push({ action: 'org.updated', target: changes.name, details: { name: { from: org.name, to: changes.name } } });
      }
      if (changes.monthlySpendLimitUsd !== undefined && changes.monthlySpendLimitUsd !== org.monthlySpendLimitUsd) {
        entries.push({ action: 'spend_limit.changed', target: org.name, details: { from: org.monthlySpendLimitUsd, to: changes.monthlySpendLimitUsd } });
      }
      if (entries.length > 0) {
        await this.deps.organizations.update(orgId, changes, tx);
        await this.deps.audit.record(orgId, actor, entries, tx);
      }
      return this.get(orgId, userId, tx);
    });
  }

  /** Owner only; everything the organization holds goes in the one transaction. */
  async delete(orgId: string, userId: string): Promise<void> {
    await this.deps.access.require(orgId, userId, 'owner');
    await this.deps.db.transaction(async (tx) => {
      await this.deps.organizations.lock(orgId, tx);
      await this.deps.access.require(orgId, userId, 'owner', tx);
      await this.deleteWithin(orgId, userId, tx);
    });
  }

  async members(orgId: string, userId: string) {
    await this.deps.access.role(orgId, userId);
    return (await this.deps.organizations.members(orgId)).map(toMember);
  }

  /**
   * Admins manage members and admins, owners everyone; an admin never acts on an owner nor makes
   * one (403). The last owner cannot demote themselves (409).
   */
  async changeRole(orgId: string, actorId: string, targetId: string, role: OrgRole) {
    await this.deps.access.require(orgId, actorId, 'admin');
    const actor = await this.actor(actorId);
    return this.deps.db.transaction(async (tx) => {
      await this.deps.organizations.lock(orgId, tx);
      const actorRole = await this.deps.access.require(orgId, actorId, 'admin', tx);
      const target = await this.target(orgId, targetId, tx);
      if (actorRole !== 'owner' && (target.role === 'owner' || role === 'owner')) throw new AppError('FORBIDDEN', 'Only an owner can change an owner or make one');
      if (target.role === 'owner' && role !== 'owner') await this.keepAnOwner(orgId, tx);
      if (target.role !== role) {
        await this.deps.organizations.setRole(orgId, target.userId, role, tx);
        await this.deps.audit.record(orgId, actor, [{ action: 'member.role_changed', target: target.email, details: { userId: target.userId, from: target.role, to: role } }], tx);
      }
      return toMember({ ...target, role });
    });
  }

  /** Admin+ removes members and admins (owners too, when an owner); anyone may leave. The last owner stays (409). */
  async removeMember(orgId: string, actorId: string, targetId: string): Promise<void> {
    await this.deps.access.role(orgId, actorId);
    const actor = await this.actor(actorId);
    await this.deps.db.transaction(async (tx) => {
      await this.deps.organizations.lock(orgId, tx);
      const leaving = targetId.toLowerCase() === actorId;
      const actorRole = leaving ? await this.deps.access.role(orgId, actorId, tx) : await this.deps.access.require(orgId, actorId, 'admin', tx);
      const target = await this.target(orgId, targetId, tx);
      if (!leaving && actorRole !== 'owner' && target.role === 'owner') throw new AppError('FORBIDDEN', 'Only an owner can remove an owner');
      if (target.role === 'owner') await this.keepAnOwner(orgId, tx);
      await this.handOver(orgId, target.userId, tx);
      await this.deps.organizations.removeMember(orgId, target.userId, tx);
      await this.deps.audit.record(orgId, actor, [{ action: 'member.removed', target: target.email, details: { userId: target.userId, role: target.role, left: leaving } }], tx);
    });
  }

  /**
   * Account deletion (decisions.md §15), inside its transaction: 409 naming the organizations the
   * user is the only owner of while others are in them; those the user is alone in go with the
   * account; from the others, what the user held for the organization goes to who stays, the
   * departure is logged and the membership goes by cascade.
   */
  async beforeAccountDeletion(userId: string, tx: Executor): Promise<void> {
    const standings = await this.deps.organizations.standings(userId, tx);
    const blocking = standings.filter((org) => org.role === 'owner' && org.owners === 1 && org.members > 1);
    if (blocking.length > 0) {
      const names = blocking.map((org) => `"${org.name}"`).join(', ');
      throw new AppError('CONFLICT', `You are the only owner of ${names}: make another member an owner, or delete the organization, first`);
    }
    const user = await this.deps.users.findById(userId, tx);
    if (user === undefined) return;
    for (const org of standings) {
      if (org.members === 1) await this.deleteWithin(org.orgId, userId, tx);
      else {
        await this.handOver(org.orgId, userId, tx);
        const entry: AuditEntry = { action: 'member.removed', target: user.email, details: { userId, role: org.role, left: true, accountDeleted: true } };
        await this.deps.audit.record(org.orgId, { userId, name: user.name }, [entry], tx);
      }
    }
  }

  private async handOver(orgId: string, leavingUserId: string, tx: Executor): Promise<void> {
    const heirs = await this.deps.organizations.heirs(orgId, leavingUserId, tx);
    if (heirs.length === 0) return;
    for (const step of this.deps.departureSteps) await step(orgId, leavingUserId, heirs, tx);
  }

  private async deleteWithin(orgId: string, byUserId: string, tx: Executor): Promise<void> {
    for (const step of this.deps.deletionSteps) await step(orgId, byUserId, tx);
    await this.deps.organizations.delete(orgId, tx);
  }

  private async target(orgId: string, userId: string, tx: Executor): Promise<MemberRow> {
    const member = isUuid(userId) ? await this.deps.organizations.member(orgId, userId.toLowerCase(), tx) : undefined;
    if (member === undefined) throw new AppError('NOT_FOUND', 'No such member in this organization');
    return member;
  }

  private async keepAnOwner(orgId: string, tx: Executor): Promise<void> {
    if ((await this.deps.organizations.ownerCount(orgId, tx)) <= 1) {
      throw new AppError('CONFLICT', 'An organization needs an owner: make another member an owner first, or delete the organization');
    }
  }

  private async actor(userId: string, executor?: Executor): Promise<Actor> {
    const user = await this.deps.users.findById(userId, executor);
    if (user === undefined) throw new AppError('UNAUTHORIZED', 'Session expired');
    return { userId, name: user.name };
  }
}
