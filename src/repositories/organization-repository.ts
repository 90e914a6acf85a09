import { and, asc, count, eq, inArray, like, ne, or, sql } from 'drizzle-orm';
import type { Database, Executor } from '../db/database.js';
import { organizationMembers, organizations, users, type Organization, type OrgRole } from '../db/schema/index.js';

export type OrganizationWithRole = Organization & { role: OrgRole };

export interface MemberRow {
  userId: string;
  name: string;
  email: string;
  role: OrgRole;
  joinedAt: Date;
}

/** A user's place in each organization they are in, with how many members and owners it has. */
export interface Standing {
  orgId: string;
  name: string;
  role: OrgRole;
  members: number;
  owners: number;
}

const orgColumns = {
  id: organizations.id,
  name: organizations.name,
  slug: organizations.slug,
  monthlySpendLimitUsd: organizations.monthlySpendLimitUsd,
  createdAt: organizations.createdAt,
  updatedAt: organizations.updatedAt,
  role: organizationMembers.role,
};

/** Organizations and their memberships: queries only; the rules are in OrganizationService. */
export class OrganizationRepository {
  constructor(private readonly db: Database) {}

  /** The caller's role in an organization, read per request (the primary key's index): none when not a member. */
  async roleOf(orgId: string, userId: string, executor: Executor = this.db): Promise<OrgRole | undefined> {
    const [row] = await executor
      .select({ role: organizationMembers.role })
      .from(organizationMembers)
      .where(and(eq(organizationMembers.orgId, orgId), eq(organizationMembers.userId, userId)))
      .limit(1);
    return row?.role;
  }

  /** The organization with the caller's role, in one query; undefined for a non-member. */
  async findForMember(orgId: string, userId: string, executor: Executor = this.db): Promise<OrganizationWithRole | undefined> {
    const [row] = await executor
      .select(orgColumns)
      .from(organizationMembers)
      .innerJoin(organizations, eq(organizations.id, organizationMembers.orgId))
      .where(and(eq(organizationMembers.orgId, orgId), eq(organizationMembers.userId, userId)))
      .limit(1);
    return row;
  }

  async listForUser(userId: string): Promise<OrganizationWithRole[]> {
    return this.db
      .select(orgColumns)
      .from(organizationMembers)
      .innerJoin(organizations, eq(organizations.id, organizationMembers.orgId))
      .where(eq(organizationMembers.userId, userId))
      .orderBy(asc(organizations.name), asc(organizations.id));
  }

  /** The slugs taken among `base` and `base-<n>`. */
  /** The organization's monthly spend limit (null: none); undefined when it is gone. */
  async spendLimit(orgId: string): Promise<number | null | undefined> {
    const [row] = await this.db.select({ limit: organizations.monthlySpendLimitUsd }).from(organizations).where(eq(organizations.id, orgId)).limit(1);
    return row?.limit;
  }

  async slugsLike(base: string, executor: Executor = this.db): Promise<string[]> {
    const rows = await executor
      .select({ slug: organizations.slug })
      .from(organizations)
      .where(or(eq(organizations.slug, base), like(organizations.slug, `${base}-%`)));
    return rows.map((row) => row.slug);
  }

  async create(values: { name: string; slug: string }, executor: Executor): Promise<Organization> {
    const [row] = await executor.insert(organizations).values(values).returning();
    return row!;
  }

  async update(orgId: string, changes: Partial<Pick<Organization, 'name' | 'monthlySpendLimitUsd'>>, executor: Executor = this.db): Promise<void> {
    await executor.update(organizations).set(changes).where(eq(organizations.id, orgId));
  }

  /**
   * Takes the organization's row lock for the rest of the transaction: membership changes that
   * check "the last owner" run one at a time, so two owners demoting each other cannot leave none.
   */
  async lock(orgId: string, executor: Executor): Promise<Organization | undefined> {
    const [row] = await executor.select().from(organizations).where(eq(organizations.id, orgId)).for('update').limit(1);
    return row;
  }

  /**
   * Deletes the organization's rows. Members, invitations and the audit log go with it (ON DELETE
   * CASCADE); the pull requests, installations and settings it will own are the deletion hook's
   * (OrganizationService).
   */
  async delete(orgId: string, executor: Executor): Promise<void> {
    await executor.delete(organizations).where(eq(organizations.id, orgId));
  }

  async addMember(values: { orgId: string; userId: string; role: OrgRole }, executor: Executor): Promise<void> {
    await executor.insert(organizationMembers).values(values);
  }

  async members(orgId: string): Promise<MemberRow[]> {
    return this.db
      .select({ userId: users.id, name: users.name, email: users.email, role: organizationMembers.role, joinedAt: organizationMembers.joinedAt })
      .from(organizationMembers)
      .innerJoin(users, eq(users.id, organizationMembers.userId))
      .where(eq(organizationMembers.orgId, orgId))
      .orderBy(asc(organizationMembers.joinedAt), asc(users.id));
  }

  async member(orgId: string, userId: string, executor: Executor = this.db): Promise<MemberRow | undefined> {
    const [row] = await executor
      .select({ userId: users.id, name: users.name, email: users.email, role: organizationMembers.role, joinedAt: organizationMembers.joinedAt })
      .from(organizationMembers)
      .innerJoin(users, eq(users.id, organizationMembers.userId))
      .where(and(eq(organizationMembers.orgId, orgId), eq(organizationMembers.userId, userId)))
      .limit(1);
    return row;
  }

  async isMemberByEmail(orgId: string, email: string): Promise<boolean> {
    const [row] = await this.db
      .select({ userId: organizationMembers.userId })
      .from(organizationMembers)
      .innerJoin(users, eq(users.id, organizationMembers.userId))
      .where(and(eq(organizationMembers.orgId, orgId), eq(users.email, email)))
      .limit(1);
    return row !== undefined;
  }

  /**
   * Who receives what a leaving member held for the organization (decisions.md §15), in order: the
   * owners, then the admins, then the members, each the longest-standing first.
   */
  async heirs(orgId: string, leavingUserId: string, executor: Executor): Promise<string[]> {
    const rank = sql`case ${organizationMembers.role} when 'owner' then 0 when 'admin' then 1 else 2 end`;
    const rows = await executor
      .select({ userId: organizationMembers.userId })
      .from(organizationMembers)
      .where(and(eq(organizationMembers.orgId, orgId), ne(organizationMembers.userId, leavingUserId)))
      .orderBy(rank, asc(organizationMembers.joinedAt), asc(organizationMembers.userId));
    return rows.map((row) => row.userId);
  }

  async ownerCount(orgId: string, executor: Executor): Promise<number> {
    const [row] = await executor
      .select({ owners: count() })
      .from(organizationMembers)
      .where(and(eq(organizationMembers.orgId, orgId), eq(organizationMembers.role, 'owner')));
    return row?.owners ?? 0;
  }

  async setRole(orgId: string, userId: string, role: OrgRole, executor: Executor): Promise<void> {
    await executor
      .update(organizationMembers)
      .set({ role })
      .where(and(eq(organizationMembers.orgId, orgId), eq(organizationMembers.userId, userId)));
  }

  async removeMember(orgId: string, userId: string, executor: Executor): Promise<void> {
    await executor.delete(organizationMembers).where(and(eq(organizationMembers.orgId, orgId), eq(organizationMembers.userId, userId)));
  }

  /**
   * Where a user stands in each of their organizations, the rows locked: account deletion decides
   * from it which organizations block it and which go with the account.
   */
  async standings(userId: string, executor: Executor): Promise<Standing[]> {
    const mine = executor.select({ orgId: organizationMembers.orgId }).from(organizationMembers).where(eq(organizationMembers.userId, userId));
    const orgIds = (await mine).map((row) => row.orgId);
    if (orgIds.length === 0) return [];
    await executor.select({ id: organizations.id }).from(organizations).where(inArray(organizations.id, orgIds)).for('update');
    return executor
      .select({
        orgId: organizations.id,
        name: organizations.name,
        role: sql<OrgRole>`max(case when ${organizationMembers.userId} = ${userId} then ${organizationMembers.role}::text end)`,
        members: sql<number>`count(*)::int`,
        owners: sql<number>`(count(*) filter (where ${organizationMembers.role} = 'owner'))::int`,
      })
      .from(organizations)
      .innerJoin(organizationMembers, eq(organizationMembers.orgId, organizations.id))
      .where(inArray(organizations.id, orgIds))
      .groupBy(organizations.id, organizations.name);
  }
}
