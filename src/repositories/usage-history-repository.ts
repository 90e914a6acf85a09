import { and, asc, between, eq, gte, lt, sql, type Placeholder, type SQL } from 'drizzle-orm';
import type { Database, DatabaseHandle } from '../db/database.js';
import { isoTime } from '../db/json-page.js';
import { reviewRuns, usageDaily, usageRecords } from '../db/schema/index.js';
import { StatementCache } from '../db/statement-cache.js';

export const USAGE_GROUPS = ['day', 'week', 'model', 'repository', 'kind'] as const;
export type UsageGroup = (typeof USAGE_GROUPS)[number];

/** A range of whole UTC days, both ends included, as `YYYY-MM-DD`. */
export interface DayRange {
  from: string;
  to: string;
}

export interface UsageSums {
  generations: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

export interface ReviewRunStats {
  count: number;
  quick: number;
  focused: number;
  deep: number;
  completed: number;
  failed: number;
  p50: number | null;
  p90: number | null;
  max: number | null;
}

/** A usage record as the CSV export writes it: every value already text. */
export type ExportRow = Record<(typeof EXPORT_COLUMNS)[number], string>;

export const EXPORT_COLUMNS = ['at', 'kind', 'modelId', 'source', 'inputTokens', 'outputTokens', 'costUsd', 'repositoryName', 'pullRequestId', 'durationMs'] as const;

/**
 * What each grouping sums by, and its key as decisions.md §14 names it. Days and weeks group by the
 * date itself and are written as text once per group: formatting every rollup row before grouping
 * (a date's `to_char` goes through a time zone) was most of a year's query. A week is the date of
 * its Monday, by date arithmetic.
 */
const GROUPS: Record<UsageGroup, { by: SQL; key: SQL<string> }> = {
  day: { by: sql`${usageDaily.day}`, key: sql<string>`to_char(${usageDaily.day}, 'YYYY-MM-DD')` },
  week: (() => {
    const monday = sql`(${usageDaily.day} - (extract(isodow from ${usageDaily.day})::int - 1))`;
    return { by: monday, key: sql<string>`to_char(${monday}, 'YYYY-MM-DD')` };
  })(),
  model: { by: sql`${usageDaily.modelId}`, key: sql<string>`${usageDaily.modelId}` },
  repository: { by: sql`coalesce(${usageDaily.repositoryName}, '(none)')`, key: sql<string>`coalesce(${usageDaily.repositoryName}, '(none)')` },
  kind: { by: sql`${usageDaily.kind}`, key: sql<string>`${usageDaily.kind}` },
};

/**
 * Rows the export reads per query. Small pages keep every row's objects short-lived: a page's rows
 * live until its last one is written, and rows that outlive two young-generation collections are
 * moved to the old generation, which is only emptied by a full collection (RSS grew by 100 MiB over
 * a million rows read 2,000 at a time).
 */
const EXPORT_PAGE = 250;

/** A value bound to the statement, or a placeholder for one prepared once per shape. */
type Bound<T> = T | Placeholder;

/** One call of the export, as the driver returns it: every value already text. */
type ExportDatabaseRow = ExportRow & { id: string; cursor: string };

/** Reads of a user's usage history. The charts read the daily rollup; only the export reads the records. */
export class UsageHistoryRepository {
  private readonly db: Database;
  // Both reads run as statements prepared once per shape: drizzle's building and row mapping cost
  // more than the query for a year's history, and several seconds over a million exported rows.
  private readonly statements: StatementCache;

  constructor(database: DatabaseHandle) {
    this.db = database.db;
    this.statements = new StatementCache(database);
  }

  /** Sums per group key over the range, only keys with use (the service fills the empty days). */
  async grouped(userId: string, range: DayRange, groupBy: UsageGroup, modelId?: string): Promise<Array<UsageSums & { key: string }>> {
    const placeholders = { userId: sql.placeholder('userId'), from: sql.placeholder('from'), to: sql.placeholder('to'), modelId: modelId && sql.placeholder('modelId') };
    const rows = await this.statements.run<Record<'key' | keyof UsageSums, string>>(
      `usage_history_${groupBy}${modelId === undefined ? '' : '_model'}`,
      () => this.groupedStatement(placeholders, groupBy),
      { userId, from: range.from, to: range.to, modelId },
    );
    return rows.map((row) => ({
      key: row.key,
      generations: Number(row.generations),
      inputTokens: Number(row.inputTokens),
      outputTokens: Number(row.outputTokens),
      costUsd: Number(row.costUsd),
    }));
  }

  /** The statement behind `grouped`, with the values bound (the benchmark prints its plan). */
  groupedQuery(userId: string, range: DayRange, groupBy: UsageGroup, modelId?: string) {
    return this.groupedStatement({ userId, from: range.from, to: range.to, modelId }, groupBy);
  }

  private groupedStatement(values: { userId: Bound<string>; from: Bound<string>; to: Bound<string>; modelId?: Bound<string> }, groupBy: UsageGroup) {
    const { by, key } = GROUPS[groupBy];
    return this.db
      .select({
        // Named: a prepared statement's rows come from the driver by column name.
        key: key.as('key'),
        generations: sql<string>`sum(${usageDaily.generations})`.as('generations'),
        inputTokens: sql<string>`sum(${usageDaily.inputTokens})`.as('inputTokens'),
        outputTokens: sql<string>`sum(${usageDaily.outputTokens})`.as('outputTokens'),
        costUsd: sql<string>`sum(${usageDaily.costUsd})`.as('costUsd'),
      })
      .from(usageDaily)
      .where(
        and(
          eq(usageDaily.userId, values.userId),
          between(usageDaily.day, values.from, values.to),
          values.modelId === undefined ? undefined : eq(usageDaily.modelId, values.modelId),
        ),
      )
      .groupBy(by)
      .orderBy(by);
  }

  /** The review runs that finished in the range, counted and their durations ranked. */
  async reviewRuns(userId: string, range: DayRange): Promise<ReviewRunStats> {
    const count = (condition: SQL) => sql<string>`count(*) filter (where ${condition})`;
    const [row] = await this.db
      .select({
        count: sql<string>`count(*)`,
        quick: count(sql`${reviewRuns.mode} = 'quick'`),
        focused: count(sql`${reviewRuns.mode} = 'focused'`),
        deep: count(sql`${reviewRuns.mode} = 'deep'`),
        completed: count(sql`${reviewRuns.status} = 'completed'`),
        failed: count(sql`${reviewRuns.status} = 'failed'`),
        p50: sql<number | null>`percentile_disc(0.5) within group (order by ${reviewRuns.durationMs})`,
        p90: sql<number | null>`percentile_disc(0.9) within group (order by ${reviewRuns.durationMs})`,
        max: sql<number | null>`max(${reviewRuns.durationMs})`,
      })
      .from(reviewRuns)
      .where(and(eq(reviewRuns.userId, userId), gte(reviewRuns.completedAt, startOf(range.from)), lt(reviewRuns.completedAt, endOf(range.to))));
    const number = (value: string | number | null) => (value === null ? null : Number(value));
    return {
      count: Number(row!.count),
      quick: Number(row!.quick),
      focused: Number(row!.focused),
      deep: Number(row!.deep),
      completed: Number(row!.completed),
      failed: Number(row!.failed),
      p50: number(row!.p50),
      p90: number(row!.p90),
      max: number(row!.max),
    };
  }

  /**
   * The records of the range, oldest first, a page at a time: each page continues after the last
   * row of the one before (at, id) on the index, so no page is held longer than it is written.
   * The rows are the driver's own objects (values as text), with the cursor columns besides.
   */
  async *records(userId: string, range: DayRange): AsyncGenerator<ExportRow[]> {
    const values = { userId, ...instants(range) };
    let after: ExportCursor | undefined;
    for (;;) {
      const page = await this.statements.run<ExportDatabaseRow>(
        after === undefined ? 'usage_export' : 'usage_export_after',
        () => this.recordsStatement({ userId: sql.placeholder('userId'), start: sql.placeholder('start'), end: sql.placeholder('end') }, after && { at: sql.placeholder('afterAt'), id: sql.placeholder('afterId') }),
        { ...values, afterAt: after?.at, afterId: after?.id },
      );
      if (page.length > 0) yield page;
      if (page.length < EXPORT_PAGE) return;
      const last = page.at(-1)!;
      after = { at: last.cursor, id: last.id };
    }
  }

  /** One page of the export, after `after`, with the values bound (the benchmark prints its plan). */
  recordsPageQuery(userId: string, range: DayRange, after: ExportCursor | undefined) {
    return this.recordsStatement({ userId, ...instants(range) }, after);
  }

  private recordsStatement(values: { userId: Bound<string>; start: Bound<string>; end: Bound<string> }, after: { at: Bound<string>; id: Bound<string> } | undefined) {
    return this.db
      .select({
        // Named (the driver's rows are by column name) and all text, as the CSV writes them.
        id: sql<string>`${usageRecords.id}::text`.as('id'),
        cursor: sql<string>`${usageRecords.at}::text`.as('cursor'),
        at: isoTime(usageRecords.at).as('at'),
        kind: sql<string>`${usageRecords.kind}`.as('kind'),
        modelId: sql<string>`${usageRecords.modelId}`.as('modelId'),
        source: sql<string>`${usageRecords.source}`.as('source'),
        inputTokens: sql<string>`${usageRecords.inputTokens}::text`.as('inputTokens'),
        outputTokens: sql<string>`${usageRecords.outputTokens}::text`.as('outputTokens'),
        costUsd: sql<string>`trim_scale(${usageRecords.costUsd})::text`.as('costUsd'),
        repositoryName: sql<string>`coalesce(${usageRecords.repositoryName}, '')`.as('repositoryName'),
        pullRequestId: sql<string>`coalesce(${usageRecords.pullRequestId}::text, '')`.as('pullRequestId'),
        durationMs: sql<string>`${usageRecords.durationMs}::text`.as('durationMs'),
      })
      .from(usageRecords)
      .where(
        and(
          eq(usageRecords.userId, values.userId),
          sql`${usageRecords.at} >= ${values.start}::timestamptz`,
          sql`${usageRecords.at} < ${values.end}::timestamptz`,
          // A row comparison: one index range, where an OR of the two conditions may not be.
          after === undefined ? undefined : sql`(${usageRecords.at}, ${usageRecords.id}) > (${after.at}::timestamptz, ${after.id}::bigint)`,
        ),
      )
      .orderBy(asc(usageRecords.at), asc(usageRecords.id))
      .limit(EXPORT_PAGE);
  }
}

/** Where the last page ended: its last row's timestamp (as PostgreSQL wrote it) and id. */
interface ExportCursor {
  at: string;
  id: string;
}

const startOf = (day: string) => new Date(`${day}T00:00:00.000Z`);
/** The first instant after the day: ranges include their last day. */
const endOf = (day: string) => new Date(Date.parse(`${day}T00:00:00.000Z`) + 86_400_000);
/** The instants bounding the range's records, as a statement's parameters. */
const instants = (range: DayRange) => ({ start: startOf(range.from).toISOString(), end: endOf(range.to).toISOString() });
