import { and, desc, eq, gte, inArray, isNull, lte, or, sql, type Placeholder, type SQLWrapper } from 'drizzle-orm';
import type { Database, DatabaseHandle, Executor } from '../db/database.js';
import { apiPrIdSql } from '../lib/ids.js';
import { isoTime, jsonPage, JsonPageStatements, nestedObject, SPACE_LABEL, type JsonFields, type Spaces } from '../db/json-page.js';
import { organizationMembers, organizations, pullRequests, reviewRuns, reviews, webhookDeliveries, type PullRequest, type ReviewStatus } from '../db/schema/index.js';
import { parsePullRequestSelector, type PullRequestSelector } from '../lib/ids.js';
import { containsPattern } from '../lib/like-pattern.js';

export interface PullRequestFilter {
  /** Desc: updated at or before it (`<=`); asc: at or after it, so each page continues the last. */
  cursor?: Date;
  search?: string;
  status?: ReviewStatus;
  repositories?: string[];
  order: 'asc' | 'desc';
  /**
   * Whose pull requests: the caller's personal ones, one organization's (the caller's membership
   * checked before), or, without it, every one the caller may see (`visibleTo`).
   */
  space?: 'personal' | { orgId: string };
}

export const PAGE_SIZE = 20;

/** A list page without items (`listPage`'s answer). */
export { EMPTY_PAGE } from '../db/json-page.js';

/** A list's filters bound to values, or to placeholders for a statement prepared once per shape. */
interface ListBinding {
  userId: string | Placeholder;
  /** `personal`, an organization's id, or absent for everything visible. */
  space?: 'personal' | { orgId: string | Placeholder };
  status?: ReviewStatus | Placeholder;
  /** One repository: an equality, one range of the (user_id, repository_name, updated_at, id) index. */
  repository?: string | Placeholder;
  /** Several: one array parameter, so that one statement serves every count (`anyOf` of jsonPage). */
  repositories?: string[] | Placeholder;
  /** An ILIKE pattern (`containsPattern`). */
  pattern?: string | Placeholder;
  cursor?: Date | Placeholder;
  order: 'asc' | 'desc';
}

/** The optional filters: which are present is a list statement's shape. */
const FILTERS = ['orgId', 'status', 'repository', 'repositories', 'pattern', 'cursor'] as const;

/** The filter's values (none for an empty repository list or search). */
const bindFilter = (userId: string, filter: PullRequestFilter): ListBinding => {
  const repositories = filter.repositories ?? [];
  return {
    userId,
    space: filter.space,
    order: filter.order,
    status: filter.status,
    repository: repositories.length === 1 ? repositories[0] : undefined,
    repositories: repositories.length > 1 ? repositories : undefined,
    pattern: filter.search ? containsPattern(filter.search) : undefined,
    cursor: filter.cursor,
  };
};

/**
 * A title search (`search` of jsonPage): the lower-cased title (`search_title`, which every list
 * index ends with) against the lower-cased ILIKE-style pattern.
 */
const titleSearch = (pattern: string | Placeholder) => ({ column: pullRequests.searchTitle, pattern: sql`lower(${pattern})` });

/** The filters but the search (which jsonPage applies on its own). */
const listConditions = (b: ListBinding) =>
  and(
    b.space === undefined ? undefined : b.space === 'personal' ? personalOf(b.userId) : eq(pullRequests.orgId, memberOrg(b.space.orgId, b.userId)),
    b.status === undefined ? undefined : eq(pullRequests.reviewStatus, b.status),
    b.repository === undefined ? undefined : eq(pullRequests.repositoryName, b.repository),
    b.cursor === undefined ? undefined : b.order === 'desc' ? lte(pullRequests.updatedAt, b.cursor) : gte(pullRequests.updatedAt, b.cursor),
  );

/**
 * The API's list item (`listItem` of pull-requests-schemas): never the payload or the cached diff.
 * Its `org` is the page's business (`pageQuery`).
 */
const listItem: JsonFields = {
  title: pullRequests.title,
  prId: apiPrIdSql(pullRequests),
  provider: pullRequests.provider,
  url: pullRequests.htmlUrl,
  number: pullRequests.prNumber,
  repositoryName: pullRequests.repositoryName,
  diff: pullRequests.diff,
  additions: pullRequests.additions,
  deletions: pullRequests.deletions,
  status: pullRequests.reviewStatus,
  createdAt: isoTime(pullRequests.createdAt),
  headBranch: pullRequests.headBranch,
  baseBranch: pullRequests.baseBranch,
  updatedAt: isoTime(pullRequests.updatedAt),
  htmlUrl: pullRequests.htmlUrl,
};

/** An item's `org`, `{id, name}`, of the organization `id` names; null for none. */
const orgFields = { id: organizations.id, name: organizations.name };
const orgObject = (id: SQLWrapper) => nestedObject(organizations, orgFields, eq(organizations.id, id));
/** The same object as JSON, of the organization `space.id` (`Spaces.label`): carried with the page's keys, it is text to copy for each item. */
const spaceOrg = sql`row_to_json(${orgObject(sql`space.id`)})`;

/** An item of the chat's getPRList tool (`ChatPullRequest`). */
const chatItem: JsonFields = {
  prId: apiPrIdSql(pullRequests),
  number: pullRequests.prNumber,
  title: pullRequests.title,
  repository: pullRequests.repositoryName,
  state: pullRequests.state,
  reviewStatus: pullRequests.reviewStatus,
  updatedAt: isoTime(pullRequests.updatedAt),
  htmlUrl: pullRequests.htmlUrl,
};

export interface ChatPullRequest {
  prId: number | string;
  number: number;
  title: string;
  repository: string;
  state: string;
  reviewStatus: ReviewStatus;
  updatedAt: string;
  htmlUrl: string | null;
}

/** The API's summary item (`summaryItem`). */
const summaryItem: JsonFields = {
  id: pullRequests.id,
  prId: apiPrIdSql(pullRequests),
  number: pullRequests.prNumber,
  title: pullRequests.title,
  createdAt: isoTime(pullRequests.createdAt),
  htmlUrl: pullRequests.htmlUrl,
};

const byUpdate = [pullRequests.updatedAt, pullRequests.id] as [typeof pullRequests.updatedAt, typeof pullRequests.id];

/** The user's personal pull requests: an organization's belongs to it, not to its author or installer. */
const personalOf = (userId: string | Placeholder) => and(eq(pullRequests.userId, userId), isNull(pullRequests.orgId))!;

/**
 * decisions.md §15: the pull requests a user may see, the personal ones and those of the user's
 * organizations. Membership is read in the same statement, never cached, so a removal holds from
 * the next request; every read of a pull request by a user goes through it.
 */
export const visibleTo = (userId: string | Placeholder) => or(personalOf(userId), sql`${pullRequests.orgId} in (${orgIdsOf(userId)})`)!;

/** The organization `orgId` when the user is a member, else null (which no pull request's `org_id` equals), as a subquery. */
const memberOrg = (orgId: string | Placeholder, userId: string | Placeholder) =>
  sql`(select ${organizationMembers.orgId} from ${organizationMembers} where ${organizationMembers.orgId} = ${orgId} and ${organizationMembers.userId} = ${userId})`;

/** The ids of the user's organizations, as a subquery. */
const orgIdsOf = (userId: string | Placeholder) => sql`select ${organizationMembers.orgId} from ${organizationMembers} where ${organizationMembers.userId} = ${userId}`;

/** Every space the user may see, for `jsonPage`: the personal range and one per organization, merged. */
const visibleSpaces = (userId: string | Placeholder): Spaces => ({ personal: personalOf(userId), column: pullRequests.orgId, ids: orgIdsOf(userId) });

/** A pull request the user may see (`visibleTo`), named by GitHub's id or the internal id. */
export const visiblePullRequest = (userId: string, selector: PullRequestSelector) =>
  and(visibleTo(userId), 'prId' in selector ? eq(pullRequests.prId, selector.prId) : eq(pullRequests.id, selector.id));

/**
 * Changes the service's own columns of a pull request (its diff cache, its review status) without
 * touching `updatedAt`: that is GitHub's time, which orders the lists, so such a change must not
 * move the pull request.
 */
export async function updatePullRequestQuietly(executor: Executor, id: string, changes: QuietPullRequestChanges): Promise<void> {
  await executor.update(pullRequests).set(quietly(changes)).where(eq(pullRequests.id, id));
}

/** The service's own columns of a pull request, the only ones `updatePullRequestQuietly` changes; whose it is (a move, a hand-over) too. */
export type QuietPullRequestChanges = Partial<Pick<PullRequest, 'diffContent' | 'reviewStatus' | 'additions' | 'deletions' | 'changedFiles' | 'orgId' | 'userId'>>;

/** The `set` of a quiet change (see `updatePullRequestQuietly`), for a statement that writes more. */
export const quietly = (changes: QuietPullRequestChanges) => ({ ...changes, updatedAt: sql`${pullRequests.updatedAt}` });

export class PullRequestRepository {
  private readonly db: Database;
  private readonly pages: JsonPageStatements;

  constructor(database: DatabaseHandle) {
    this.db = database.db;
    this.pages = new JsonPageStatements(database);
  }

  /**
   * One page of a user's pull requests, as the API's JSON: one range of a (user_id, …, updated_at,
   * id) index, one per repository merged, or a search (`jsonPage`'s `search`).
   */
  listPage(userId: string, filter: PullRequestFilter): Promise<string> {
    return this.page('page', listItem, userId, filter);
  }

  /** The newest page by status and title, as the chat's getPRList tool answers it. */
  async chatList(userId: string, filter: Pick<PullRequestFilter, 'search' | 'status'>): Promise<ChatPullRequest[]> {
    return JSON.parse(await this.page('chat', chatItem, userId, { ...filter, order: 'desc' })) as ChatPullRequest[];
  }

  /** The query behind `listPage`, with the values bound (for EXPLAIN). */
  listPageQuery(userId: string, filter: PullRequestFilter) {
    return this.pageQuery(listItem, bindFilter(userId, filter));
  }

  /** A page of `item`s: the statement of its kind and the filters present, run with their values. */
  private page(kind: string, item: JsonFields, userId: string, filter: PullRequestFilter): Promise<string> {
    const { order, space, ...rest } = bindFilter(userId, filter);
    const values = { ...rest, orgId: typeof space === 'object' ? space.orgId : undefined };
    const present = FILTERS.filter((key) => values[key] !== undefined);
    const spaceShape = space === undefined ? 'visible' : space === 'personal' ? 'personal' : 'org';
    const { orgId, ...placeholders } = Object.fromEntries(present.map((key) => [key, sql.placeholder(key)]));
    return this.pages.page(
      `pull_requests_${kind}_${spaceShape}_${order}${present.map((key) => `_${key}`).join('')}`,
      () =>
        this.pageQuery(item, {
          userId: sql.placeholder('userId'),
          order,
          space: space === 'personal' ? space : orgId === undefined ? undefined : { orgId },
          ...placeholders,
        }),
      { ...values, cursor: filter.cursor?.toISOString() },
    );
  }

  private pageQuery(item: JsonFields, binding: ListBinding) {
    const spaces = binding.space === undefined ? visibleSpaces(binding.userId) : undefined;
    return jsonPage(this.db, {
      table: pullRequests,
      where: listConditions(binding),
      orderBy: byUpdate,
      direction: binding.order,
      limit: PAGE_SIZE,
      item: item === listItem ? { ...item, org: this.pageOrg(binding) } : item,
      anyOf: binding.repositories === undefined ? undefined : { column: pullRequests.repositoryName, values: binding.repositories },
      search: binding.pattern === undefined ? undefined : titleSearch(binding.pattern),
      spaces: spaces && { ...spaces, label: spaceOrg },
    });
  }

  /**
   * The items' `org`, read once for the page where it can be, not for each row (a lookup and an
   * object for each of 20 rows took a fifth of the page's time): none in the personal space; one
   * organization's, once; everything visible, each organization once, as its space's label. A
   * search over everything finds its keys without the labels, so it looks up each row's.
   */
  private pageOrg({ space, pattern }: ListBinding): SQLWrapper {
    if (space === 'personal') return sql`null`;
    if (space !== undefined) return orgObject(sql`${space.orgId}::uuid`);
    return pattern === undefined ? SPACE_LABEL : orgObject(pullRequests.orgId);
  }

  /** Pull requests updated at or after `since`, newest first, as the API's JSON. */
  summaryPage(userId: string, since: Date | undefined, search: string | undefined): Promise<string> {
    const pattern = search ? containsPattern(search) : undefined;
    return this.pages.page(
      `pull_requests_summary${since === undefined ? '' : '_since'}${pattern === undefined ? '' : '_pattern'}`,
      () => this.summaryQuery(sql.placeholder('userId'), since && sql.placeholder('since'), pattern && sql.placeholder('pattern')),
      { userId, since: since?.toISOString(), pattern },
    );
  }

  /** The query behind `summaryPage`, with the values bound (for EXPLAIN). */
  summaryPageQuery(userId: string, since: Date | undefined, search: string | undefined) {
    return this.summaryQuery(userId, since, search ? containsPattern(search) : undefined);
  }

  private summaryQuery(userId: string | Placeholder, since: Date | Placeholder | undefined, pattern: string | Placeholder | undefined) {
    return jsonPage(this.db, {
      table: pullRequests,
      where: since === undefined ? undefined : gte(pullRequests.updatedAt, since),
      spaces: visibleSpaces(userId),
      orderBy: byUpdate,
      direction: 'desc',
      limit: PAGE_SIZE,
      item: summaryItem,
      search: pattern === undefined ? undefined : titleSearch(pattern),
    });
  }

  /** Caches a diff read outside the review pipeline (the chat's getDiff). */
  cacheDiff(id: string, diffContent: string): Promise<void> {
    return updatePullRequestQuietly(this.db, id, { diffContent });
  }

  /** A pull request the user may see, by GitHub's id or the internal id (as text or a number); anything else finds nothing. */
  async findOwnedBySelector(userId: string, value: string | number): Promise<PullRequest | undefined> {
    const selector = parsePullRequestSelector(value);
    if (selector === undefined) return undefined;
    const [row] = await this.db.select().from(pullRequests).where(visiblePullRequest(userId, selector)).limit(1);
    return row;
  }

  async findOwned(userId: string, id: string): Promise<PullRequest | undefined> {
    const [row] = await this.db.select().from(pullRequests).where(visiblePullRequest(userId, { id })).limit(1);
    return row;
  }

  /** By the internal key reviews reference (a GitLab merge request's is negative). */
  async findByPrId(prId: number): Promise<PullRequest | undefined> {
    const [row] = await this.db.select().from(pullRequests).where(eq(pullRequests.prId, prId)).limit(1);
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

  /**
   * A member leaving the organization hands the organization's pull requests stored under them (an
   * author's, or an installer's or a connection's owner's) to `heir`, with their reviews, runs and
   * deliveries: the rows that would go with the leaving user's account (decisions.md §15). The
   * lists' order (`updatedAt`, the host's time) stays.
   */
  async handOver(orgId: string, leavingUserId: string, heir: string, tx: Executor): Promise<void> {
    const theirs = and(eq(pullRequests.orgId, orgId), eq(pullRequests.userId, leavingUserId));
    const keys = tx.select({ prId: pullRequests.prId }).from(pullRequests).where(theirs);
    await tx.update(reviews).set({ userId: heir }).where(and(eq(reviews.userId, leavingUserId), inArray(reviews.prId, keys)));
    await tx.update(webhookDeliveries).set({ userId: heir }).where(and(eq(webhookDeliveries.userId, leavingUserId), inArray(webhookDeliveries.prId, keys)));
    await tx.update(pullRequests).set(quietly({ userId: heir })).where(theirs);
    await tx.update(reviewRuns).set({ userId: heir }).where(and(eq(reviewRuns.orgId, orgId), eq(reviewRuns.userId, leavingUserId)));
  }
}
