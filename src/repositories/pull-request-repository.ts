import { and, asc, desc, eq, gte, ilike, inArray, lte, sql, type SQL } from 'drizzle-orm';
import type { Database, Executor } from '../db/database.js';
import { pullRequests, type PullRequest, type ReviewStatus } from '../db/schema/index.js';
import { parsePullRequestSelector, type PullRequestSelector } from '../lib/ids.js';
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

/** What a list page shows: never the payload (`bodyBlob`) or the cached diff, which are kilobytes a row. */
const listColumns = {
  title: pullRequests.title,
  prId: pullRequests.prId,
  prNumber: pullRequests.prNumber,
  repositoryName: pullRequests.repositoryName,
  state: pullRequests.state,
  diff: pullRequests.diff,
  additions: pullRequests.additions,
  deletions: pullRequests.deletions,
  reviewStatus: pullRequests.reviewStatus,
  createdAt: pullRequests.createdAt,
  headBranch: pullRequests.headBranch,
  baseBranch: pullRequests.baseBranch,
  updatedAt: pullRequests.updatedAt,
  htmlUrl: pullRequests.htmlUrl,
};

/** The owner's pull request, named by GitHub's id or the internal id. */
export const ownedPullRequest = (userId: string, selector: PullRequestSelector) =>
  and(eq(pullRequests.userId, userId), 'prId' in selector ? eq(pullRequests.prId, selector.prId) : eq(pullRequests.id, selector.id));

/**
 * Changes the service's own columns of a pull request (its diff cache, its review status) without
 * touching `updatedAt`: that is GitHub's time, which orders the lists, so such a change must not
 * move the pull request.
 */
export async function updatePullRequestQuietly(
  executor: Executor,
  id: string,
  changes: Partial<Pick<PullRequest, 'diffContent' | 'reviewStatus'>>,
): Promise<void> {
  await executor
    .update(pullRequests)
    .set({ ...changes, updatedAt: sql`${pullRequests.updatedAt}` })
    .where(eq(pullRequests.id, id));
}

export class PullRequestRepository {
  constructor(private readonly db: Database) {}

  /**
   * One page of a user's pull requests; every variant is one range of a (user_id, …, updated_at, id)
   * index, or a search in the (user_id, title trigram) index, whichever the planner finds cheaper
   * for the term. The query itself is returned (awaiting it runs it) so tests can EXPLAIN it.
   */
  list(userId: string, filter: PullRequestFilter) {
    const conditions: Array<SQL | undefined> = [eq(pullRequests.userId, userId)];
    if (filter.status !== undefined) conditions.push(eq(pullRequests.reviewStatus, filter.status));
    if (filter.repositories?.length) conditions.push(inArray(pullRequests.repositoryName, filter.repositories));
    if (filter.search) conditions.push(ilike(pullRequests.title, containsPattern(filter.search)));
    if (filter.cursor !== undefined) conditions.push(filter.order === 'desc' ? lte(pullRequests.updatedAt, filter.cursor) : gte(pullRequests.updatedAt, filter.cursor));
    const direction = filter.order === 'desc' ? desc : asc;
    return this.db
      .select(listColumns)
      .from(pullRequests)
      .where(and(...conditions))
      .orderBy(direction(pullRequests.updatedAt), direction(pullRequests.id))
      .limit(PAGE_SIZE);
  }

  /** Pull requests updated at or after `since`, newest first (a query, like `list`). */
  summary(userId: string, since: Date | undefined, search: string | undefined) {
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
  cacheDiff(id: string, diffContent: string): Promise<void> {
    return updatePullRequestQuietly(this.db, id, { diffContent });
  }

  /** The owner's pull request by GitHub's id or the internal id (as text or a number); anything else finds nothing. */
  async findOwnedBySelector(userId: string, value: string | number): Promise<PullRequest | undefined> {
    const selector = parsePullRequestSelector(value);
    if (selector === undefined) return undefined;
    const [row] = await this.db.select().from(pullRequests).where(ownedPullRequest(userId, selector)).limit(1);
    return row;
  }

  async findOwned(userId: string, id: string): Promise<PullRequest | undefined> {
    const [row] = await this.db.select().from(pullRequests).where(ownedPullRequest(userId, { id })).limit(1);
    return row;
  }

  async find(id: string): Promise<PullRequest | undefined> {
    const [row] = await this.db.select().from(pullRequests).where(eq(pullRequests.id, id)).limit(1);
    return row;
  }

  /** A pull request by its repository and number (commands in comments name it so), newest stored first. */
  async findByNumber(repositoryName: string, prNumber: number): Promise<PullRequest | undefined> {
    const [row] = await this.db
      .select()
      .from(pullRequests)
      .where(and(eq(pullRequests.repositoryName, repositoryName), eq(pullRequests.prNumber, prNumber)))
      .orderBy(desc(pullRequests.updatedAt))
      .limit(1);
    return row;
  }
}
