import { and, asc, eq, gte, isNull, lt, sql, type Placeholder, type SQL } from 'drizzle-orm';
import type { Database, DatabaseHandle } from '../db/database.js';
import { isoTime } from '../db/json-page.js';
import { ownedBy } from '../db/owner-condition.js';
import { reviewRuns, usageDaily, usageRecords, users } from '../db/schema/index.js';
import { StatementCache } from '../db/statement-cache.js';
import type { Owner } from '../domain/owners.js';

export const USAGE_GROUPS = ['day', 'week', 'model', 'repository', 'kind'] as const;
/** An organization's history also groups by the member who triggered each call (decisions.md §15). */
export const ORG_USAGE_GROUPS = [...USAGE_GROUPS, 'member'] as const;
export type UsageGroup = (typeof ORG_USAGE_GROUPS)[number];

/** A range of whole UTC days, both ends included, as `YYYY-MM-DD`. */
export interface DayRange {
  from: string;
  to: string;
}

/** What a history is asked for: a range, a grouping and, optionally, one model's calls only. */
export interface HistoryFilter extends DayRange {
  groupBy: UsageGroup;
  modelId?: string;
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
/** An organization's export names the member each call is attributed to, last (empty when none). */
export const ORG_EXPORT_COLUMNS = [...EXPORT_COLUMNS, 'memberEmail'] as const;

/** The export's columns for an owner. */
export const exportColumns = (owner: Owner): readonly string[] => (owner.kind === 'org' ? ORG_EXPORT_COLUMNS : EXPORT_COLUMNS);

/**
 * What each grouping sums by. Days and weeks group by the date itself (a week by the date of its
 * Monday, by date arithmetic) and are written as text once per bucket: formatting every rollup row
 * before grouping (a date's `to_char` goes through a time zone) was most of a year's query.
 */
const GROUPS: Record<UsageGroup, SQL> = {
  day: sql`${usageDaily.day}`,
  week: sql`(${usageDaily.day} - (extract(isodow from ${usageDaily.day})::int - 1))`,
  model: sql`${usageDaily.modelId}`,
  repository: sql`coalesce(${usageDaily.repositoryName}, '(none)')`,
  kind: sql`${usageDaily.kind}`,
  member: sql`coalesce(${usageDaily.memberId}::text, '(none)')`,
};

/** Sums as the API writes them: integers, and dollars rounded to the micro-dollar (as `GET /usage`). */
const sumsJson = (sums: { generations: SQL; inputTokens: SQL; outputTokens: SQL; costUsd: SQL }) =>
  sql`'generations', coalesce(${sums.generations}, 0), 'inputTokens', coalesce(${sums.inputTokens}, 0), 'outputTokens', coalesce(${sums.outputTokens}, 0), 'costUsd', round(coalesce(${sums.costUsd}, 0), 6)::float8`;

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
type ExportDatabaseRow = ExportRow & { id: string; cursor: string; memberEmail?: string };

/** An owner whose id is bound to a statement prepared once per kind of owner. */
const boundOwner = (kind: Owner['kind']) => ({ kind, id: sql.placeholder('ownerId') as unknown as string });

/** Reads of the usage history of a user or an organization. The charts read the daily rollup; only the export reads the records. */
export class UsageHistoryRepository {
  private readonly db: Database;
  // Both reads run as statements prepared once per shape: drizzle's building and row mapping cost
  // as much as the query for a year's history, and seconds over a million exported rows.
  private readonly statements: StatementCache;

  constructor(database: DatabaseHandle) {
    this.db = database.db;
    this.statements = new StatementCache(database);
  }

  /**
   * decisions.md §14's history as the API's JSON, rendered by the database (db/json-page.ts's
   * reasons): the range's sums per key, every day or week of it present (zeros where unused), and
   * the total. A year by day is 366 buckets: building, checking and serializing them in the
   * process cost as much as the query.
   */
  async history(owner: Owner, query: HistoryFilter): Promise<string> {
    const { groupBy, modelId } = query;
    const [row] = await this.statements.run<{ json: string }>(
      `usage_history_${owner.kind}_${groupBy}${modelId === undefined ? '' : '_model'}`,
      () => this.historyStatement({ owner: boundOwner(owner.kind), from: sql.placeholder('from'), to: sql.placeholder('to'), modelId: modelId && sql.placeholder('modelId') }, groupBy),
      { ownerId: owner.id, from: query.from, to: query.to, modelId },
    );
    return row!.json;
  }

  /** The statement behind `history`, with the values bound (the benchmark prints its plan). */
  historyQuery(owner: Owner, query: HistoryFilter) {
    return this.historyStatement({ owner, from: query.from, to: query.to, modelId: query.modelId }, query.groupBy);
  }

  private historyStatement(values: { owner: Owner; from: Bound<string>; to: Bound<string>; modelId?: Bound<string> }, groupBy: UsageGroup) {
    const by = GROUPS[groupBy];
    const sums = sql`select ${by} as key, sum(${usageDaily.generations}) as generations, sum(${usageDaily.inputTokens}) as input_tokens,
        sum(${usageDaily.outputTokens}) as output_tokens, sum(${usageDaily.costUsd}) as cost_usd
      from ${usageDaily}
      where ${and(
        ownedBy(usageDaily, values.owner),
        sql`${usageDaily.day} between ${values.from}::date and ${values.to}::date`,
        values.modelId === undefined ? undefined : eq(usageDaily.modelId, values.modelId),
      )}
      group by 1`;
    // Every day, or the Monday of every week the range touches: the zero buckets come from here.
    const first = groupBy === 'week' ? sql`(${values.from}::date - (extract(isodow from ${values.from}::date)::int - 1))` : sql`${values.from}::date`;
    const step = groupBy === 'week' ? 7 : 1;
    const buckets =
      groupBy === 'day' || groupBy === 'week'
        ? sql`(select periods.key, to_char(periods.key, 'YYYY-MM-DD') as label, sums.generations, sums.input_tokens, sums.output_tokens, sums.cost_usd
            from (select ${first} + ${sql.raw(String(step))} * n as key from generate_series(0, (${values.to}::date - ${first}) / ${sql.raw(String(step))}) as n) as periods
            left join (${sums}) as sums using (key)) as buckets`
        : sql`(select key, key as label, generations, input_tokens, output_tokens, cost_usd from (${sums}) as sums) as buckets`;
    const column = (name: string) => sql.raw(`buckets.${name}`);
    const bucket = sumsJson({ generations: column('generations'), inputTokens: column('input_tokens'), outputTokens: column('output_tokens'), costUsd: column('cost_usd') });
    const total = sumsJson({ generations: sql`sum(buckets.generations)`, inputTokens: sql`sum(buckets.input_tokens)`, outputTokens: sql`sum(buckets.output_tokens)`, costUsd: sql`sum(buckets.cost_usd)` });
    return this.db
      .select({
        json: sql<string>`json_build_object('from', ${values.from}::text, 'to', ${values.to}::text, 'groupBy', ${groupBy}::text,
          'buckets', coalesce(json_agg(json_build_object('key', buckets.label, ${bucket}) order by buckets.key), '[]'),
          'total', json_build_object(${total}))::text`.as('json'),
      })
      .from(buckets);
  }

  /** The review runs that finished in the range, counted and their durations ranked. */
  async reviewRuns(owner: Owner, range: DayRange): Promise<ReviewRunStats> {
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
      // A run of an organization's pull request counts in the organization's usage, not its author's.
      .where(and(owner.kind === 'user' ? and(eq(reviewRuns.userId, owner.id), isNull(reviewRuns.orgId)) : eq(reviewRuns.orgId, owner.id), gte(reviewRuns.completedAt, startOf(range.from)), lt(reviewRuns.completedAt, endOf(range.to))));
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
  async *records(owner: Owner, range: DayRange): AsyncGenerator<ExportRow[]> {
    const values = { ownerId: owner.id, ...instants(range) };
    let after: ExportCursor | undefined;
    for (;;) {
      const page = await this.statements.run<ExportDatabaseRow>(
        `usage_export_${owner.kind}${after === undefined ? '' : '_after'}`,
        () => this.recordsStatement({ owner: boundOwner(owner.kind), start: sql.placeholder('start'), end: sql.placeholder('end') }, after && { at: sql.placeholder('afterAt'), id: sql.placeholder('afterId') }),
        { ...values, afterAt: after?.at, afterId: after?.id },
      );
      if (page.length > 0) yield page;
      if (page.length < EXPORT_PAGE) return;
      const last = page.at(-1)!;
      after = { at: last.cursor, id: last.id };
    }
  }

  /** One page of the export, after `after`, with the values bound (the benchmark prints its plan). */
  recordsPageQuery(owner: Owner, range: DayRange, after: ExportCursor | undefined) {
    return this.recordsStatement({ owner, ...instants(range) }, after);
  }

  private recordsStatement(values: { owner: Owner; start: Bound<string>; end: Bound<string> }, after: { at: Bound<string>; id: Bound<string> } | undefined) {
    const byMember = values.owner.kind === 'org';
    const query = this.db
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
        // The member's address today (empty once their account is gone): the record keeps only the id.
        ...(byMember ? { memberEmail: sql<string>`coalesce(${users.email}, '')`.as('memberEmail') } : {}),
      })
      .from(usageRecords)
      .$dynamic();
    return (byMember ? query.leftJoin(users, eq(users.id, usageRecords.memberId)) : query)
      .where(
        and(
          ownedBy(usageRecords, values.owner),
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
