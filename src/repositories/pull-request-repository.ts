import { and, asc, desc, eq, gte, ilike, inArray, lte, sql, type SQL } from 'drizzle-orm';
import type { Database } from '../db/database.js';
import { pullRequests, type PullRequest, type ReviewStatus } from '../db/schema/index.js';
import { parsePullRequestSelector } from '../lib/ids.js';
import { containsPattern } from '../lib/like-pattern.js';

export interface PullRequestFilter {
  /** Desc: updated at or before it (`<=`); asc: at or after it, so each page continues the last. */
  cursor?: Date;
  search?: string;
  status?: ReviewStatus;
  repositories?: string[];
  order: 'asc' | 'desc';
}

export const PAGE_SIZE = 20;

export class PullRequestRepository {
  constructor(private readonly db: Database) {}

  /** One page of a user's pull requests; every variant is one range of a (user_id, …, updated_at) index. */
  listQuery(userId: string, filter: PullRequestFilter) {
    const conditions: Array<SQL | undefined> = [eq(pullRequests.userId, userId)];
    if (filter.status !== undefined) conditions.push(eq(pullRequests.reviewStatus, filter.status));
    if (filter.repositories?.length) conditions.push(inArray(pullRequests.repositoryName, filter.repositories));
    if (filter.search) conditions.push(ilike(pullRequests.title, containsPattern(filter.search)));
    if (filter.cursor !== undefined) conditions.push(filter.order === 'desc' ? lte(pullRequests.updatedAt, filter.cursor) : gte(pullRequests.updatedAt, filter.cursor));
    const direction = filter.order === 'desc' ? desc : asc;
    return this.db
      .select()
      .from(pullRequests)
      .where(and(...conditions))
      .orderBy(direction(pullRequests.updatedAt), direction(pullRequests.id))
      .limit(PAGE_SIZE);
  }

  list(userId: string, filter: PullRequestFilter): Promise<PullRequest[]> {
    return this.listQuery(userId, filter);
  }

  /** Pull requests updated at or after `since`, newest first. */
  summaryQuery(userId: string, since: Date | undefined, search: string | undefined) {
    return this.db
      .select({
        id: pullRequests.id,
        prId: pullRequests.prId,
        prNumber: pullRequests.prNumber,
        title: pullRequests.title,
        createdAt: pullRequests.createdAt,
        htmlUrl: pullRequests.htmlUrl,
      })
      .from(pullRequests)
      .where(
        and(
          eq(pullRequests.userId, userId),
          since === undefined ? undefined : gte(pullRequests.updatedAt, since),
          search ? ilike(pullRequests.title, containsPattern(search)) : undefined,
        ),
      )
      .orderBy(desc(pullRequests.updatedAt), desc(pullRequests.id))
      .limit(PAGE_SIZE);
  }

  /** Caches a diff read outside the review pipeline (the chat's getDiff). */
  async cacheDiff(id: string, diffContent: string): Promise<void> {
    await this.db.update(pullRequests).set({ diffContent, updatedAt: sql`${pullRequests.updatedAt}` }).where(eq(pullRequests.id, id));
  }

  /** The owner's pull request by GitHub's id or the internal id; anything else finds nothing. */
  async findOwnedBySelector(userId: string, value: string | number): Promise<PullRequest | undefined> {
    const selector = parsePullRequestSelector(value);
    if (selector === undefined) return undefined;
    const [row] = await this.db
      .select()
      .from(pullRequests)
      .where(and(eq(pullRequests.userId, userId), 'prId' in selector ? eq(pullRequests.prId, selector.prId) : eq(pullRequests.id, selector.id)))
      .limit(1);
    return row;
  }

  async find(id: string): Promise<PullRequest | undefined> {
    const [row] = await this.db.select().from(pullRequests).where(eq(pullRequests.id, id)).limit(1);
    return row;
  }

  async findOwned(userId: string, id: string): Promise<PullRequest | undefined> {
    const [row] = await this.db
      .select()
      .from(pullRequests)
      .where(and(eq(pullRequests.userId, userId), eq(pullRequests.id, id)))
      .limit(1);
    return row;
  }
}
