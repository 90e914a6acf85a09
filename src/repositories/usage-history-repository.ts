import { and, asc, between, eq, gte, lt, sql, type SQL } from 'drizzle-orm';
import type { Database } from '../db/database.js';
import { isoTime } from '../db/json-page.js';
import { reviewRuns, usageDaily, usageRecords } from '../db/schema/index.js';

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

// Keys as decisions.md §14 names them: the Monday of an ISO week is PostgreSQL's `date_trunc('week')`.
const GROUP_KEYS: Record<UsageGroup, SQL<string>> = {
  day: sql<string>`to_char(${usageDaily.day}, 'YYYY-MM-DD')`,
  week: sql<string>`to_char(date_trunc('week', ${usageDaily.day}), 'YYYY-MM-DD')`,
  model: sql<string>`${usageDaily.modelId}`,
  repository: sql<string>`coalesce(${usageDaily.repositoryName}, '(none)')`,
  kind: sql<string>`${usageDaily.kind}`,
};

/** Rows the export reads per query: a page of keyset pagination, so memory stays flat whatever the range. */
const EXPORT_PAGE = 2000;

/** Reads of a user's usage history. The charts read the daily rollup; only the export reads the records. */
export class UsageHistoryRepository {
  constructor(private readonly db: Database) {}

  /** Sums per group key over the range, only keys with use (the service fills the empty days). */
  async grouped(userId: string, range: DayRange, groupBy: UsageGroup, modelId?: string): Promise<Array<UsageSums & { key: string }>> {
    const rows = await this.groupedQuery(userId, range, groupBy, modelId);
    return rows.map((row) => ({
      key: row.key,
      generations: Number(row.generations),
      inputTokens: Number(row.inputTokens),
      outputTokens: Number(row.outputTokens),
      costUsd: Number(row.costUsd),
    }));
  }

  /** The statement behind `grouped` (the benchmark prints its plan). */
  groupedQuery(userId: string, range: DayRange, groupBy: UsageGroup, modelId?: string) {
    const key = GROUP_KEYS[groupBy];
    return this.db
      .select({
        key,
        generations: sql<string>`sum(${usageDaily.generations})`,
        inputTokens: sql<string>`sum(${usageDaily.inputTokens})`,
        outputTokens: sql<string>`sum(${usageDaily.outputTokens})`,
        costUsd: sql<string>`sum(${usageDaily.costUsd})`,
      })
      .from(usageDaily)
      .where(and(eq(usageDaily.userId, userId), between(usageDaily.day, range.from, range.to), modelId === undefined ? undefined : eq(usageDaily.modelId, modelId)))
      .groupBy(key)
      .orderBy(key);
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
   */
  async *records(userId: string, range: DayRange): AsyncGenerator<ExportRow[]> {
    let after: ExportCursor | undefined;
    for (;;) {
      const page = await this.recordsPageQuery(userId, range, after);
      if (page.length > 0) yield page.map(({ id: _id, cursor: _cursor, ...row }) => row);
      if (page.length < EXPORT_PAGE) return;
      const last = page.at(-1)!;
      after = { at: last.cursor, id: last.id };
    }
  }

  /** One page of the export, after `after` (the benchmark prints its plan). */
  recordsPageQuery(userId: string, range: DayRange, after: ExportCursor | undefined) {
    return this.db
      .select({
        id: usageRecords.id,
        cursor: sql<string>`${usageRecords.at}::text`,
        at: isoTime(usageRecords.at),
        kind: usageRecords.kind,
        modelId: usageRecords.modelId,
        source: usageRecords.source,
        inputTokens: sql<string>`${usageRecords.inputTokens}::text`,
        outputTokens: sql<string>`${usageRecords.outputTokens}::text`,
        costUsd: sql<string>`trim_scale(${usageRecords.costUsd})::text`,
        repositoryName: sql<string>`coalesce(${usageRecords.repositoryName}, '')`,
        pullRequestId: sql<string>`coalesce(${usageRecords.pullRequestId}::text, '')`,
        durationMs: sql<string>`${usageRecords.durationMs}::text`,
      })
      .from(usageRecords)
      .where(
        and(
          eq(usageRecords.userId, userId),
          gte(usageRecords.at, startOf(range.from)),
          lt(usageRecords.at, endOf(range.to)),
          // A row comparison: one index range, where an OR of the two conditions may not be.
          after === undefined ? undefined : sql`(${usageRecords.at}, ${usageRecords.id}) > (${after.at}::timestamptz, ${after.id})`,
        ),
      )
      .orderBy(asc(usageRecords.at), asc(usageRecords.id))
      .limit(EXPORT_PAGE);
  }
}

/** Where the last page ended: its last row's timestamp (as PostgreSQL wrote it) and id. */
interface ExportCursor {
  at: string;
  id: number;
}

const startOf = (day: string) => new Date(`${day}T00:00:00.000Z`);
/** The first instant after the day: ranges include their last day. */
const endOf = (day: string) => new Date(Date.parse(`${day}T00:00:00.000Z`) + 86_400_000);
