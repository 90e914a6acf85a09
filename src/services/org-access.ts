import type { Executor } from '../db/database.js';
import type { OrgRole } from '../db/schema/index.js';
import { AppError } from '../lib/app-error.js';
import { isUuid } from '../lib/ids.js';
import type { OrganizationRepository } from '../repositories/organization-repository.js';

const RANK: Record<OrgRole, number> = { member: 0, admin: 1, owner: 2 };

export const atLeast = (role: OrgRole, least: OrgRole) => RANK[role] >= RANK[least];

/** decisions.md §15: whatever the path, a non-member learns nothing, not even that the organization exists. */
export const noSuchOrganization = () => new AppError('NOT_FOUND', 'Organization not found');

/**
 * Who may do what in an organization. The role is read from the database on every request (one
 * primary-key lookup, ~0.1 ms) and never cached, so a role change or a removal holds from the very
 * next request. Lists will not call this per item: they join the memberships in their one query.
 */
export class OrgAccess {
  constructor(private readonly organizations: OrganizationRepository) {}

  /** The caller's role; 404 for a non-member, and for an id that cannot be an organization's. */
  async role(orgId: string, userId: string, executor?: Executor): Promise<OrgRole> {
    if (!isUuid(orgId)) throw noSuchOrganization();
    const role = await this.organizations.roleOf(orgId.toLowerCase(), userId, executor);
    if (role === undefined) throw noSuchOrganization();
    return role;
  }

  /** The caller's role when it is at least `least`; 403 for a member below it (404 for a non-member). */
  async require(orgId: string, userId: string, least: OrgRole, executor?: Executor): Promise<OrgRole> {
    const role = await this.role(orgId, userId, executor);
    if (!atLeast(role, least)) throw new AppError('FORBIDDEN', least === 'owner' ? 'Only an owner can do this' : 'Only an owner or an admin can do this');
    return role;
  }
}
