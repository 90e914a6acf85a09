import { and, asc, desc, eq, or, Placeholder, sql, type AnyColumn, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { AnyPgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Database, DatabaseHandle } from './database.js';
import { StatementCache } from './statement-cache.js';

/*
 * List pages rendered by the database as the JSON the API answers with. A list request used to
 * spend most of its CPU outside the query: the driver decoding each of 20 rows × 14 fields, drizzle
 * mapping them, the service renaming them and zod checking them again before JSON.stringify. Built
 * here, a page is one text value that the route sends as it is.
 */

/** A timestamp as `Date#toISOString` writes it (UTC, milliseconds, `Z`): the API's timestamps. */
export const isoTime = (column: AnyColumn) => sql<string>`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** An object's fields: the API's keys (code, never input) and their values. */
export type JsonFields = Record<string, SQLWrapper>;

/** One JSON object per row, with the API's keys. */
export const jsonObject = (fields: JsonFields) =>
  sql`json_build_object(${sql.join(
    Object.entries(fields).map(([key, value]) => sql`${sql.raw(`'${key}'`)}, ${value}`),
    sql`, `,
  )})`;

/** The fields as the columns of one row, named by their keys: what `json_agg` writes as an object. */
const namedColumns = (fields: JsonFields) => sql.join(Object.entries(fields).map(([key, value]) => sql`${value} as ${sql.identifier(key)}`), sql`, `);

/**
 * An object nested in a page's item: `fields` of the one row of `table` that `where` finds, or
 * null when none does (an item's `org` of a personal pull request).
 */
export const nestedObject = (table: PgTable, fields: JsonFields, where: SQL) => sql`(select nested from (select ${namedColumns(fields)} from ${table} where ${where}) as nested)`;

/** The alias of a page's item row (see `jsonPage`). */
const PAGE_ITEM = sql.identifier('page_item');

/**
 * The items of a page as one JSON array (text, so that no driver parses it), in `order`: the
 * page's own ORDER BY does not carry into an aggregate, the aggregate's does.
 */
const jsonArray = (order: SQL[]) => sql<string>`coalesce(json_agg(${PAGE_ITEM} order by ${sql.join(order, sql`, `)})::text, ${sql.raw(`'${EMPTY_PAGE}'`)})`;

/** A page without items, as `jsonPage` answers it. */
export const EMPTY_PAGE = '[]';

export interface JsonPageOptions {
  /** Rows of this table… */
  table: PgTable;
  /** …matching this… */
  where: SQL | undefined;
  /** …in the order of a column and the primary key as tie-breaker (an index holds both)… */
  orderBy: [AnyPgColumn, AnyPgColumn];
  direction: 'asc' | 'desc';
  /** …at most this many, each as an object of these fields. */
  limit: number;
  item: JsonFields;
  /**
   * Rows whose `column` is any of `values` (text): read as one index range per value, each cut at
   * `limit`, then merged. A filter on the whole ordered range would walk past every row of the
   * other values to fill a page.
   */
  anyOf?: { column: AnyPgColumn; values: string[] | Placeholder };
  /**
   * A search no index orders by: `column LIKE pattern`, where the ordering index holds `column`
   * and a trigram index serves the LIKE. See `searchedKeys` for how a page of matches is found
   * whether the term is common or rare.
   */
  search?: { column: AnyPgColumn; pattern: SQL };
  /**
   * Rows of several owners' spaces (decisions.md §15): `personal`'s, and those whose `column` is
   * any of the ids `ids` (a subquery) selects. Read as one index range for the personal space and
   * one per id, each cut at `limit`, then merged, as `anyOf`: a condition joining the spaces by OR
   * would leave the planner no index that orders them. `where` then holds only the other filters.
   */
  spaces?: Spaces;
}

export interface Spaces {
  personal: SQL;
  column: AnyPgColumn;
  /** The spaces' ids (a subquery of one column). */
  ids: SQL;
  /**
   * A value of each space, which items read as `SPACE_LABEL` (without a search): worked out once
   * for an id (`space.id`), where a column of the items would work it out for every row; null for
   * the personal space.
   */
  label?: SQL;
}

/** In a page of `spaces` with a `label`, the label of the item's space (a column of the page's keys). */
export const SPACE_LABEL = sql.identifier('spaces_label');

/**
 * How far a search walks the ordered index before it turns to the search index: 20 matches in the
 * newest 1,000 rows (a term in one title of 50) are found there in well under a millisecond.
 */
export const SEARCH_WALK = 1000;

/**
 * One page of rows as the API's JSON array (the query's single row holds it in `json`). The page's
 * keys are found first and the rows read after: the keys come from the index alone where it
 * covers the filters (a title search reads titles from the index, not the rows it skips), and
 * only the page's rows are read whole.
 *
 * Each item is a row of named columns (a lateral subquery) that `json_agg` writes as an object:
 * building that JSON was the largest part of a page's time in the database, and a row costs less
 * than `json_build_object`, which works out each argument's type again for every row, and it
 * writes no spaces (a page of 20: 103 against 122 µs of PostgreSQL's time, docs/benchmarks.md).
 */
export function jsonPage(db: Database, options: JsonPageOptions) {
  const { table, orderBy: [, id], direction, item, search } = options;
  const order = direction === 'desc' ? desc : asc;
  const { keys, steps } = search === undefined ? { keys: firstKeys(db, options, options.limit).as('page_keys'), steps: [] } : searchedKeys(db, { ...options, search });
  return db
    .with(...steps)
    .select({ json: jsonArray([order(keys.by), order(keys.id)]).as('json') })
    .from(keys)
    .innerJoin(table, eq(id, keys.id))
    .crossJoinLateral(sql`(select ${namedColumns(item)}) as ${PAGE_ITEM}`);
}

/**
 * The first `count` keys in order, with the searched column (null without a search): one range of
 * the ordering index, or one per `anyOf` value or space, each cut at `count`, merged.
 */
function firstKeys(db: Database, { table, where, orderBy: [by, id], direction, anyOf, search, spaces }: JsonPageOptions, count: number) {
  const order = direction === 'desc' ? desc : asc;
  const searched = sql<string | null>`${search?.column ?? sql`null`}`.as('searched');
  const range = (condition: SQL | undefined) =>
    db.select({ by, id, searched }).from(table).where(condition).orderBy(order(by), order(id)).limit(literalCount(count));
  if (spaces !== undefined) {
    // Several repositories filter each space's range here rather than multiply the ranges.
    const filters = and(where, anyOf === undefined ? undefined : sql`${anyOf.column} = any(${textArray(anyOf.values)})`);
    const perSpace = range(and(filters, eq(spaces.column, sql`space.id`))).as('per_space');
    // `offset 0` keeps each label worked out once for its space, before the lateral join multiplies the rows.
    const labelled = sql`(select space.id, ${spaces.label ?? sql`null`} as label from (${spaces.ids}) as space(id) offset 0) as space`;
    const merged = sql`((select *, null as label from (${range(and(filters, spaces.personal))}) as personal)
      union all (select ${perSpace.by}, ${perSpace.id}, ${perSpace.searched}, space.label from ${labelled} cross join lateral ${perSpace})) as spaces_keys`;
    const [byKey, idKey] = [sql<Date>`spaces_keys.${sql.identifier(by.name)}`, sql<string>`spaces_keys.${sql.identifier(id.name)}`];
    return db
      .select({
        by: byKey.as('spaces_by'),
        id: idKey.as('spaces_id'),
        searched: sql<string | null>`spaces_keys.searched`.as('spaces_searched'),
        label: sql`spaces_keys.label`.as('spaces_label'),
      })
      .from(merged)
      .orderBy(order(byKey), order(idKey))
      .limit(literalCount(count)) as unknown as ReturnType<typeof range>; // the same keys, named by aliases, and the label
  }
  if (anyOf === undefined) return range(where);
  const values = sql`unnest(${textArray(anyOf.values)}) as any_of(value)`;
  const perValue = range(and(where, eq(anyOf.column, sql`any_of.value`))).as('per_value');
  return db
    .select({ by: perValue.by, id: perValue.id, searched: perValue.searched })
    .from(values)
    .crossJoinLateral(perValue)
    .orderBy(order(perValue.by), order(perValue.id))
    .limit(literalCount(count));
}

/** Values bound as one text[] parameter: a bare array would be spread into a list of parameters. */
const textArray = (values: string[] | Placeholder) => sql`${values instanceof Placeholder ? values : sql.param(values)}::text[]`;

/**
 * A page of matches of a search, by one plan that serves any term, so that it is planned once:
 * - near: the matches among the first SEARCH_WALK keys, read from the ordering index alone. A
 *   common term fills the page here.
 * - far: otherwise every match, found through the search index (a trigram index, where a rare
 *   term has few), then sorted. `offset 0` keeps the planner from walking the ordering index
 *   instead, which for a rare term would read the whole range. Where the range is shorter than
 *   the walk, near already holds every match and far finds the same few again: cheaper than
 *   counting the range to tell.
 * `near_is_page` is evaluated once, and far only runs when it is false. Its steps are the
 * statement's WITH queries.
 */
function searchedKeys(db: Database, options: JsonPageOptions & Required<Pick<JsonPageOptions, 'search'>>) {
  const { table, where, orderBy: [by, id], direction, limit, anyOf, search } = options;
  const order = direction === 'desc' ? desc : asc;
  const walk = firstKeys(db, options, SEARCH_WALK).as('walk');
  const near = db.$with('near').as(
    // (select …): the pattern computed once, not for each of the walk's rows.
    db.select({ by: walk.by, id: walk.id }).from(walk).where(sql`${walk.searched} like (select ${search.pattern})`).orderBy(order(walk.by), order(walk.id)).limit(literalCount(limit)),
  );
  const nearIsPage = db.$with('near_is_page').as(
    db.select({ yes: sql<boolean>`(select count(*) from ${near}) = ${literalCount(limit)}`.as('yes') }).from(sql`(values (1)) as once`),
  );
  const inAnyOf = anyOf === undefined ? undefined : sql`${anyOf.column} = any(${textArray(anyOf.values)})`;
  const inSpaces = options.spaces === undefined ? undefined : or(options.spaces.personal, sql`${options.spaces.column} in (${options.spaces.ids})`);
  const matches = db.select({ by, id }).from(table).where(and(where, inSpaces, inAnyOf, sql`${search.column} like ${search.pattern}`)).offset(literalCount(0)).as('matches');
  const far = db
    .select({ by: matches.by, id: matches.id })
    .from(matches)
    .where(sql`not (select yes from ${nearIsPage})`)
    .orderBy(order(matches.by), order(matches.id))
    .limit(literalCount(limit));
  const keys = db.select({ by: near.by, id: near.id }).from(near).where(sql`(select yes from ${nearIsPage})`).unionAll(far).as('page_keys');
  return { keys, steps: [near, nearIsPage] };
}

/**
 * A LIMIT (or OFFSET) written into the statement, not bound as a parameter: PostgreSQL cannot tell
 * that a generic plan with `LIMIT $n` reads a few rows, so it would plan a prepared statement
 * again on every call. (drizzle types `limit` as a number or a placeholder, and leaves out an
 * `offset` of 0; it renders SQL as given.)
 */
export const literalCount = (limit: number) => sql`${limit}`.inlineParams() as unknown as number;

/**
 * Page queries prepared once per shape (which filters are present) and run by name; each call
 * answers the page's JSON text.
 */
export class JsonPageStatements {
  private readonly statements: StatementCache;

  constructor(database: DatabaseHandle) {
    this.statements = new StatementCache(database);
  }

  /** The page of `shape` for these values; `query` builds its statement (with placeholders) the first time. */
  async page(shape: string, query: () => ReturnType<typeof jsonPage>, values: Record<string, unknown>): Promise<string> {
    const [row] = await this.statements.run<{ json: string }>(shape, query, values);
    return row!.json;
  }
}
