import { createHash } from 'node:crypto';
import { and, desc, eq, getTableColumns, is, isNull, or, SQL, sql, type Placeholder } from 'drizzle-orm';
import type { PgUpdateSetSource, QueryBuilder } from 'drizzle-orm/pg-core';
import type { Database, DatabaseHandle } from '../db/database.js';
import { apiPrIdSql } from '../lib/ids.js';
import type { HostKind } from '../domain/host-kinds.js';
import { isoTime, jsonObject, literalCount } from '../db/json-page.js';
import { StatementCache } from '../db/statement-cache.js';
import type { PullRequestSelector } from '../lib/ids.js';
import {
  pullRequests,
  reviewRuns,
  reviews,
  users,
  webhookDeliveries,
  workspaceSettings,
  organizationMembers,
  type PipelineState,
  type PullRequest,
  type Review,
  type ReviewCoverage,
  type ReviewMode,
  type ReviewStatus,
  type User,
  type WorkspaceSettings,
} from '../db/schema/index.js';
import type { ScorableReview } from '../domain/findings.js';
import type { CompletedReview, DiffStats } from '../domain/review-content.js';
import { visiblePullRequest, quietly, updatePullRequestQuietly, type QuietPullRequestChanges } from './pull-request-repository.js';

export interface ManualRun {
  pullRequestId: string;
  prId: number;
  userId: string;
  headSha: string;
  /** The mode the request named; without one, the repository's `.ai-review.yml` chooses (else `focused`). */
  mode?: ReviewMode;
}

/** What the extract step stores for a run: the diffs, and what `.ai-review.yml` decided. */
export interface RunContent {
  diff: string;
  incrementalDiff: string | null;
  mode?: ReviewMode;
  repositoryConfig?: unknown;
  /** The diff's counts, for a code host whose event did not carry them (GitLab's merge request hook). */
  stats?: DiffStats;
}

export interface ReviewOutcome {
  reviewSummary: string;
  reviewRawJson: unknown;
  reviewdSha: string;
  coverage: ReviewCoverage;
}

type RunChanges = PgUpdateSetSource<typeof reviews>;

/**
 * The value of `previous_run` when a run starts: the finished run's outcome, or, when the row is
 * still pending (a run superseded before it ended), the outcome kept before that run. The intake's
 * statement sets it the same way (webhook-intake-repository.ts).
 */
export const PREVIOUS_RUN_SNAPSHOT = `case when reviews.status = 'pending' then reviews.previous_run else jsonb_build_object(
  'status', reviews.status, 'state', reviews.state, 'headSha', reviews.head_sha, 'mode', reviews.mode,
  'triggedBy', reviews.trigged_by, 'attemptNumber', reviews.attempt_number, 'duration', reviews.duration,
  'failureReason', reviews.failure_reason, 'startedAt', reviews.started_at, 'completedAt', reviews.completed_at) end`;
/** Told of every run that finishes (a superseded run's writes do nothing, and are not told). */
export type RunFinished = (outcome: 'completed' | 'failed', mode: ReviewMode) => void;

/** A review on the dashboard, with what scoring reads of its JSON and its pull request. */
export interface RecentReview {
  id: string;
  status: ReviewStatus;
  reviewSummary: string | null;
  /** ISO 8601, as the API writes it. */
  completedAt: string | null;
  scorable: ScorableReview | null;
  pullRequestId: string;
  /** GitHub's id, or the record's UUID for a GitLab merge request. */
  prId: number | string;
  provider: HostKind;
  url: string | null;
  prNumber: number;
  title: string;
  repositoryName: string;
}

/** What a completed run's email needs (`runEmail`): the message's own fields, the page's id, what scoring reads. */
export type RunEmail = Pick<CompletedReview, 'to' | 'name' | 'prTitle' | 'repository' | 'prNumber' | 'prHtmlUrl'> & {
  pr: { id: string; prId: number; provider: HostKind };
  scorable: ScorableReview | null;
};

/** The review of a pull request and its runs; every write of a run is fenced by its run id. */
export class ReviewRepository {
  private readonly statements: StatementCache;
  private readonly db: Database;
  private readonly hot: ReturnType<typeof hotStatements>;
  /** `updateRun`'s statements by shape. */
  private readonly runWrites = new Map<string, RunWriteStatement>();

  constructor(
    database: DatabaseHandle,
    private readonly finished: RunFinished = () => undefined,
  ) {
    this.db = database.db;
    this.statements = new StatementCache(database);
    this.hot = hotStatements(this.db);
  }

  /**
   * Starts a manual run: the pull request's one review row (created if missing) goes back to
   * `WEBHOOK_RECEIVED` / `pending` with a new run id, whatever state it was in, and the run id is
   * returned. A run started by a delivery is started by the intake's statement instead
   * (webhook-intake-repository.ts), which resets the same columns.
   */
  async startManual(run: ManualRun): Promise<string> {
    return this.db.transaction(async (tx) => {
      const [row] = await tx
        .insert(reviews)
        .values({ id: run.pullRequestId, prId: run.prId, userId: run.userId, headSha: run.headSha, mode: run.mode ?? 'focused', requestedMode: run.mode ?? null, triggedBy: 'manual' })
        .onConflictDoUpdate({
          target: reviews.id,
          set: {
            userId: run.userId,
            headSha: run.headSha,
            mode: run.mode ?? 'focused',
            requestedMode: run.mode ?? null,
            previousRun: sql.raw(PREVIOUS_RUN_SNAPSHOT),
            triggedBy: 'manual',
            runId: sql`gen_random_uuid()`,
            state: 'WEBHOOK_RECEIVED',
            status: 'pending',
            attemptNumber: 1,
            duration: 0,
            failureReason: null,
            incrementalDiff: null,
            startedAt: new Date(),
            completedAt: null,
          },
        })
        .returning({ runId: reviews.runId });
      await updatePullRequestQuietly(tx, run.pullRequestId, { reviewStatus: 'pending' });
      return row!.runId;
    });
  }

  /** A run's review with its pull request, owner and workspace settings: what a pipeline step reads, in one query. */
  async loadRun(id: string): Promise<{ review: Review; pr: PullRequest; owner: User; settings: WorkspaceSettings | null; userIsMember: boolean } | undefined> {
    const [row] = await this.hot.loadRun.execute({ id });
    return row;
  }

  /** The review and pull request a stored delivery started a run for, in one query. */
  async runOfDelivery(deliveryId: string): Promise<{ review: Review; pr: PullRequest; headSha: string } | undefined> {
    const [row] = await this.hot.runOfDelivery.execute({ deliveryId });
    return row;
  }

  /**
   * What a run's completion email says, while the run is the pull request's current one, completed,
   * and its owner wants emails: of the review's JSON only what scoring reads, never the diff.
   */
  async runEmail(id: string, runId: string): Promise<RunEmail | undefined> {
    const [row] = await this.hot.runEmail.execute({ id, runId });
    return row;
  }

  /**
   * Moves a pending run to the next pipeline state; false when the run is no longer current.
   * `relaxed` skips waiting for the WAL flush: for a state the next step's own durable write
   * supersedes, losing it in a database crash costs nothing (steps check the run, not the state).
   */
  advance(id: string, runId: string, state: PipelineState, attempt: number, { relaxed = false } = {}): Promise<boolean> {
    return this.updateRun(id, runId, { state, attemptNumber: attempt }, { relaxed }).then(isCurrent);
  }

  /** The extracted content of a run and its new state, in one commit. False when the run is no longer current. */
  storeContent(id: string, runId: string, content: RunContent, attempt: number): Promise<boolean> {
    return this.updateRun(
      id,
      runId,
      { state: 'PR_CONTENT_EXTRACTED', attemptNumber: attempt, incrementalDiff: content.incrementalDiff, mode: content.mode, repositoryConfig: content.repositoryConfig },
      { pullRequest: { diffContent: content.diff, ...content.stats } },
    ).then(isCurrent);
  }

  /**
   * Ends a run `.ai-review.yml` switched off (`auto: false`, or a draft with `drafts: false`) as if
   * it never started: the last finished run's outcome is put back, or, when there was none, the
   * review row goes, so neither a failed review nor a pending one is left behind. `onlyWhileDraft`
   * keeps the run (`kept`) when the pull request is no longer a draft, checked under its row lock
   * so a `ready_for_review` landing meanwhile is not lost.
   */
  dismiss(id: string, runId: string, { onlyWhileDraft = false } = {}): Promise<'dismissed' | 'kept' | 'not-current'> {
    return this.db.transaction(async (tx) => {
      if (onlyWhileDraft) {
        const [pr] = await tx.select({ draft: pullRequests.draft }).from(pullRequests).where(eq(pullRequests.id, id)).for('share');
        if (pr?.draft === false) return 'kept';
      }
      const current = and(eq(reviews.id, id), eq(reviews.runId, runId), eq(reviews.status, 'pending'));
      const [row] = await tx.select({ previousRun: reviews.previousRun }).from(reviews).where(current).for('update');
      if (row === undefined) return 'not-current';
      const previous = row.previousRun;
      if (previous === null) {
        await tx.delete(reviews).where(current);
        return 'dismissed';
      }
      await tx
        .update(reviews)
        .set({
          status: previous.status,
          state: previous.state,
          headSha: previous.headSha,
          mode: previous.mode,
          triggedBy: previous.triggedBy,
          attemptNumber: previous.attemptNumber,
          duration: previous.duration,
          failureReason: previous.failureReason,
          startedAt: new Date(previous.startedAt),
          completedAt: previous.completedAt === null ? null : new Date(previous.completedAt),
          requestedMode: null,
          incrementalDiff: null,
        })
        .where(current);
      await updatePullRequestQuietly(tx, id, { reviewStatus: previous.status });
      return 'dismissed';
    });
  }

  complete(id: string, runId: string, outcome: ReviewOutcome): Promise<boolean> {
    return this.finish(id, runId, 'completed', { ...outcome, state: 'PROCESSING_COMPLETED', failureReason: null });
  }

  /** The run failed for good; its reason stays on the review. */
  fail(id: string, runId: string, reason: string, attempt: number): Promise<boolean> {
    return this.finish(id, runId, 'failed', { state: 'PROCESSING_FAILED', failureReason: reason.slice(0, 2000), attemptNumber: attempt });
  }

  /** A pull request's review (its id is the pull request's), for a caller that found the pull request itself. */
  async reviewOf(prId: string): Promise<Review | undefined> {
    const [row] = await this.db.select().from(reviews).where(eq(reviews.id, prId)).limit(1);
    return row;
  }

  /**
   * The pull request (without its diff) and its review. Its callers read neither the diff nor need
   * it, and the page polls this while a review runs: a 2,000-file pull request's diff is 12 MB,
   * fetched and decoded on every poll (on PGlite, most of the service's CPU while it was reviewed).
   */
  async findWithPullRequest(userId: string, selector: PullRequestSelector): Promise<{ pr: PullRequest; review: Review | null } | undefined> {
    const [row] = await this.db
      .select({ pr: { ...getTableColumns(pullRequests), diffContent: sql<string | null>`null` }, review: reviews })
      .from(pullRequests)
      .leftJoin(reviews, eq(reviews.id, pullRequests.id))
      .where(visiblePullRequest(userId, selector))
      .limit(1);
    return row;
  }

  /**
   * The user's most recent reviews with their pull requests, newest first: what the dashboard shows,
   * and of the review's JSON only what scoring reads (not the payload, the diff or the findings' texts).
   */
  async recentForUser(userId: string, limit: number): Promise<RecentReview[]> {
    const rows = await this.statements.run<{ recent: RecentReview }>(`reviews_recent_${limit}`, () => this.recentQuery(sql.placeholder('userId'), limit), { userId });
    return rows.map((row) => row.recent);
  }

  /**
   * The query behind `recentForUser`, with the values bound (for EXPLAIN). Each row is one JSON
   * object, which either driver decodes the same way (numbers as numbers, the timestamp as the API
   * writes it).
   */
  recentQuery(userId: string | Placeholder, limit: number) {
    const recent = jsonObject({
      id: reviews.id,
      status: reviews.status,
      reviewSummary: reviews.reviewSummary,
      completedAt: isoTime(reviews.completedAt),
      scorable: sql`jsonb_build_object('comments', ${reviews.reviewRawJson} -> 'comments', 'confidence', ${reviews.reviewRawJson} -> 'confidence')`,
      pullRequestId: pullRequests.id,
      prId: apiPrIdSql(pullRequests),
      provider: pullRequests.provider,
      url: pullRequests.htmlUrl,
      prNumber: pullRequests.prNumber,
      title: pullRequests.title,
      repositoryName: pullRequests.repositoryName,
    });
    return this.db
      .select({ recent: recent.as('recent') })
      .from(reviews)
      .innerJoin(pullRequests, eq(pullRequests.id, reviews.id))
      .where(eq(reviews.userId, userId))
      .orderBy(desc(reviews.startedAt), desc(reviews.id))
      .limit(literalCount(limit));
  }

  private async finish(id: string, runId: string, status: 'completed' | 'failed', changes: RunChanges): Promise<boolean> {
    const mode = await this.updateRun(id, runId, { ...changes, status }, { pullRequest: { reviewStatus: status }, finished: true });
    if (mode !== undefined) this.finished(status, mode);
    return mode !== undefined;
  }

  /**
   * Every write of a run: applied only while the run is current (its id, still pending), with the
   * pull request's side and, for a finished run, its `review_runs` row. One statement (data-modifying
   * CTEs), so all of it commits together without begin/commit round trips. Built once per shape
   * (which columns it writes, which of them are null) and named, like the reads above. The run's
   * mode, or undefined when it is no longer current.
   */
  private async updateRun(id: string, runId: string, changes: RunChanges, options: RunWriteOptions): Promise<ReviewMode | undefined> {
    const run = definedEntries(changes);
    const pullRequest = options.pullRequest === undefined ? undefined : definedEntries(options.pullRequest);
    const shape = JSON.stringify([shapeOf(run), pullRequest && shapeOf(pullRequest), options.relaxed === true, options.finished === true]);
    let statement = this.runWrites.get(shape);
    if (statement === undefined) {
      // Named by the shape itself: two repositories on one pool never give one name two statements.
      statement = this.runWrite(run, pullRequest, options).prepare(`review_run_write_${createHash('sha1').update(shape).digest('hex').slice(0, 16)}`);
      this.runWrites.set(shape, statement);
    }
    const values = { id, runId, ...placeholderValues('run', run), ...placeholderValues('pr', pullRequest ?? []) };
    const [row] = await statement.execute(values);
    return row?.mode;
  }

  /** The statement of one shape of `updateRun`, its values as placeholders. */
  private runWrite(run: Array<[string, unknown]>, pullRequest: Array<[string, unknown]> | undefined, { relaxed = false, finished = false }: RunWriteOptions) {
    const db = this.db;
    const write = db.$with('run').as(
      db
        .update(reviews)
        .set({ ...placeholders('run', run), ...(finished ? { completedAt: sql`now()`, duration: elapsed() } : {}) })
        .where(and(eq(reviews.id, sql.placeholder('id')), eq(reviews.runId, sql.placeholder('runId')), eq(reviews.status, 'pending')))
        .returning({ id: reviews.id, mode: reviews.mode, userId: reviews.userId, status: reviews.status, startedAt: reviews.startedAt, completedAt: reviews.completedAt, duration: reviews.duration }),
    );
    const sideWrites = [];
    if (pullRequest !== undefined) {
      const set = quietly(placeholders('pr', pullRequest));
      sideWrites.push(db.$with('pull_request').as(db.update(pullRequests).set(set).from(write).where(eq(pullRequests.id, write.id))));
    }
    // A finished run joins the usage history of review runs (decisions.md §14); columns in the table's order.
    if (finished) {
      const row = (qb: QueryBuilder) =>
        qb
          .select({
            runId: sql<string>`${sql.placeholder('runId')}::uuid`.as('run_id'),
            userId: write.userId,
            // An organization's pull request: the run counts in the organization's usage (decisions.md §15).
            // Written out: inside the CTEs drizzle leaves columns unqualified, and both sides are called `id`.
            orgId: sql<string | null>`(select owner_pr.org_id from pull_requests as owner_pr where owner_pr.id = "run"."id")`.as('org_id'),
            reviewId: write.id,
            mode: write.mode,
            status: sql<'completed' | 'failed'>`${write.status}`.as('status'),
            startedAt: write.startedAt,
            completedAt: sql<Date>`${write.completedAt}`.as('completed_at'),
            durationMs: write.duration,
          })
          .from(write);
      sideWrites.push(db.$with('finished_run').as(db.insert(reviewRuns).select(row).onConflictDoNothing()));
    }
    // `relaxed`: the statement is its own transaction, so a transaction-local setting made in it
    // applies to its commit, without a begin/set/commit of three round trips.
    return db
      .with(write, ...sideWrites)
      .select({ mode: write.mode, ...(relaxed ? { relaxed: sql`set_config('synchronous_commit', 'off', true)` } : {}) })
      .from(write);
  }
}

type RunWriteStatement = ReturnType<ReturnType<ReviewRepository['runWrite']>['prepare']>;

interface RunWriteOptions {
  pullRequest?: QuietPullRequestChanges;
  relaxed?: boolean;
  /** Sets `completed_at` and `duration` and writes the run's `review_runs` row. */
  finished?: boolean;
}

/** The columns a write sets (drizzle skips undefined ones), in a stable order. */
const definedEntries = (changes: object): Array<[string, unknown]> =>
  Object.entries(changes)
    .filter(([, value]) => value !== undefined)
    .sort(([a], [b]) => a.localeCompare(b));

/**
 * A write's shape: its columns, and which are null. A null stays a literal in the statement: a
 * placeholder's value goes through the column's encoder, which writes a JSON column's null as the
 * JSON value `null`, not SQL NULL. Values must be values: an SQL fragment would be frozen into the
 * first statement of its shape.
 */
const shapeOf = (entries: Array<[string, unknown]>) =>
  entries.map(([column, value]) => {
    if (is(value, SQL)) throw new Error(`${column}: a run's write takes values, not SQL`);
    return value === null ? `${column}:null` : column;
  });

const placeholders = (prefix: string, entries: Array<[string, unknown]>) => Object.fromEntries(entries.map(([column, value]) => [column, value === null ? null : sql.placeholder(`${prefix}_${column}`)]));

const placeholderValues = (prefix: string, entries: Array<[string, unknown]>) => Object.fromEntries(entries.filter(([, value]) => value !== null).map(([column, value]) => [`${prefix}_${column}`, value]));

/**
 * The reads every run makes at each pipeline step, built once and named: drizzle builds no SQL for
 * them per call, and PostgreSQL parses and plans each once per connection. A 200-review drain spent
 * a sixth of the service's CPU building queries (decisions.md, "Statements built once").
 */
function hotStatements(db: Database) {
  return {
    loadRun: db
      .select({
        review: reviews,
        pr: pullRequests,
        owner: users,
        settings: workspaceSettings,
        // decisions.md §15: a webhook's review is attributed to the author when a member (`runMember`).
        userIsMember: sql<boolean>`exists (select 1 from ${organizationMembers} where ${organizationMembers.orgId} = ${pullRequests.orgId} and ${organizationMembers.userId} = ${pullRequests.userId})`,
      })
      .from(reviews)
      .innerJoin(pullRequests, eq(pullRequests.id, reviews.id))
      .innerJoin(users, eq(users.id, pullRequests.userId))
      // The settings of the pull request's owner: its organization's, else its user's (decisions.md §15).
      .leftJoin(
        workspaceSettings,
        or(eq(workspaceSettings.orgId, pullRequests.orgId), and(isNull(pullRequests.orgId), eq(workspaceSettings.userId, users.id), isNull(workspaceSettings.orgId))),
      )
      .where(eq(reviews.id, sql.placeholder('id')))
      .limit(1)
      .prepare('review_load_run'),
    runEmail: db
      .select({
        to: users.email,
        name: users.name,
        prTitle: pullRequests.title,
        repository: pullRequests.repositoryName,
        prNumber: pullRequests.prNumber,
        prHtmlUrl: pullRequests.htmlUrl,
        pr: { id: pullRequests.id, prId: pullRequests.prId, provider: pullRequests.provider },
        scorable: sql<ScorableReview | null>`jsonb_build_object('comments', ${reviews.reviewRawJson} -> 'comments', 'confidence', ${reviews.reviewRawJson} -> 'confidence')`,
      })
      .from(reviews)
      .innerJoin(pullRequests, eq(pullRequests.id, reviews.id))
      .innerJoin(users, eq(users.id, pullRequests.userId))
      .where(and(eq(reviews.id, sql.placeholder('id')), eq(reviews.runId, sql.placeholder('runId')), eq(reviews.status, 'completed'), eq(users.emailNotification, true)))
      .prepare('review_run_email'),
    runOfDelivery: db
      .select({ review: reviews, pr: pullRequests, headSha: webhookDeliveries.headSha })
      .from(webhookDeliveries)
      .innerJoin(pullRequests, eq(pullRequests.prId, webhookDeliveries.prId))
      .innerJoin(reviews, eq(reviews.id, pullRequests.id))
      .where(and(eq(webhookDeliveries.deliveryId, sql.placeholder('deliveryId')), eq(webhookDeliveries.startsReview, true)))
      .limit(1)
      .prepare('review_run_of_delivery'),
  };
}

const isCurrent = (mode: ReviewMode | undefined) => mode !== undefined;

/** Milliseconds since the run started, computed by the database from the row itself. */
const elapsed = () => sql<number>`greatest(0, (extract(epoch from (now() - ${reviews.startedAt})) * 1000)::int)`;
