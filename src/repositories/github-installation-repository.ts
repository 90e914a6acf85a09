import { and, desc, eq, inArray, isNull, or, sql } from 'drizzle-orm';
import type { Database, Executor } from '../db/database.js';
import { githubInstallations, organizationMembers, pullRequests, users, type GitHubInstallation, type InstalledRepository } from '../db/schema/index.js';
import { feedbackFollows } from './finding-feedback-repository.js';
import { quietly } from './pull-request-repository.js';

export interface InstallationFacts {
  id: number;
  senderId: number;
  accountId: number;
  accountLogin: string;
  accountType: string;
  repositorySelection: string;
}

/** The App's installations (decisions.md §8): queries only; the rules are in the installation service. */
export class GitHubInstallationRepository {
  constructor(private readonly db: Database) {}

  async find(id: number): Promise<GitHubInstallation | undefined> {
    const [row] = await this.db.select().from(githubInstallations).where(eq(githubInstallations.id, id)).limit(1);
    return row;
  }

  /**
   * Records an installation from any of its events. A new row belongs to the registered user whose
   * GitHub id sent the event (else it is unclaimed); a known one keeps its owner. `repositories`
   * replaces the list when given.
   */
  async upsert(facts: InstallationFacts, changes: { repositories?: InstalledRepository[]; suspended?: boolean; deleted?: boolean } = {}): Promise<GitHubInstallation> {
    const owner = sql`(select ${users.id} from ${users} where ${users.codehostUserId} = ${facts.senderId})`;
    const state = {
      accountId: facts.accountId,
      accountLogin: facts.accountLogin,
      accountType: facts.accountType,
      repositorySelection: facts.repositorySelection,
      ...(changes.repositories === undefined ? {} : { repositories: changes.repositories }),
      ...(changes.suspended === undefined ? {} : { suspended: changes.suspended }),
      ...(changes.deleted === undefined ? {} : { deletedAt: changes.deleted ? new Date() : null }),
    };
    const [row] = await this.db
      .insert(githubInstallations)
      .values({ id: facts.id, senderId: facts.senderId, userId: owner, ...state })
      .onConflictDoUpdate({ target: githubInstallations.id, set: { ...state, updatedAt: new Date() } })
      .returning();
    return row!;
  }

  /** Adds and removes repositories of an installation in one statement (concurrent events do not lose each other's). */
  async changeRepositories(facts: InstallationFacts, added: InstalledRepository[], removedIds: number[]): Promise<GitHubInstallation> {
    const existing = await this.upsert(facts);
    const [row] = await this.db
      .update(githubInstallations)
      .set({
        repositories: sql`(
          select coalesce(jsonb_agg(r), '[]'::jsonb) from (
            select r from jsonb_array_elements(${githubInstallations.repositories}) as r
            where not ((r->>'id')::bigint = any(${`{${[...removedIds, ...added.map((repo) => repo.id)].join(',')}}`}::bigint[]))
            union all
            select r from jsonb_array_elements(${JSON.stringify(added)}::jsonb) as r
          ) as list)`,
        updatedAt: new Date(),
      })
      .where(eq(githubInstallations.id, existing.id))
      .returning();
    return row!;
  }

  /** Gives the unclaimed installations of a GitHub id to the user who just signed in or linked it. */
  async claim(userId: string, githubId: number, executor: Executor = this.db): Promise<void> {
    await executor
      .update(githubInstallations)
      .set({ userId, updatedAt: new Date() })
      .where(and(eq(githubInstallations.senderId, githubId), isNull(githubInstallations.userId)));
  }

  /** The installations the user sees that are still installed: personal ones and their organizations', newest first. */
  listForUser(userId: string): Promise<GitHubInstallation[]> {
    const orgs = this.db.select({ orgId: organizationMembers.orgId }).from(organizationMembers).where(eq(organizationMembers.userId, userId));
    return this.db
      .select()
      .from(githubInstallations)
      .where(
        and(
          or(and(eq(githubInstallations.userId, userId), isNull(githubInstallations.orgId)), inArray(githubInstallations.orgId, orgs)),
          isNull(githubInstallations.deletedAt),
        ),
      )
      .orderBy(desc(githubInstallations.createdAt));
  }

  /** The installation, locked for a move. */
  async lock(id: number, tx: Executor): Promise<GitHubInstallation | undefined> {
    const [row] = await tx.select().from(githubInstallations).where(eq(githubInstallations.id, id)).for('update');
    return row;
  }

  /**
   * Moves the installation into `orgId`, or out of its organization into `userId`'s personal space,
   * with the pull requests that came through it.
   */
  async move(id: number, orgId: string | null, userId: string, tx: Executor): Promise<void> {
    await tx
      .update(githubInstallations)
      .set({ orgId, ...(orgId === null ? { userId } : {}), updatedAt: new Date() })
      .where(eq(githubInstallations.id, id));
    const moved = and(eq(pullRequests.provider, 'github'), eq(pullRequests.installationId, id))!;
    await tx.update(pullRequests).set(quietly({ orgId })).where(moved);
    await feedbackFollows(tx, moved);
  }

  /**
   * A member leaving the organization hands the installations held in their name to `heir`: while
   * its user is gone (an account deleted clears it), an installation stores no pull request of an
   * unregistered author (decisions.md §8, §15).
   */
  async handOver(orgId: string, leavingUserId: string, heir: string, tx: Executor): Promise<void> {
    await tx.update(githubInstallations).set({ userId: heir, updatedAt: new Date() }).where(and(eq(githubInstallations.orgId, orgId), eq(githubInstallations.userId, leavingUserId)));
  }

  /** An organization's deletion hands its installations back to the deleting owner's personal space. */
  async returnToUser(orgId: string, userId: string, tx: Executor): Promise<void> {
    await tx.update(githubInstallations).set({ orgId: null, userId, updatedAt: new Date() }).where(eq(githubInstallations.orgId, orgId));
  }
}

/** Whether the App may still act on a repository of this installation (decisions.md §8, access lost). */
export function installationCovers(installation: GitHubInstallation | undefined, repository: { id?: number | null; fullName: string }): boolean {
  if (installation === undefined || installation.deletedAt !== null || installation.suspended) return false;
  if (installation.repositorySelection === 'all') return true;
  return installation.repositories.some((repo) => (typeof repository.id === 'number' && repo.id === repository.id) || repo.fullName.toLowerCase() === repository.fullName.toLowerCase());
}
