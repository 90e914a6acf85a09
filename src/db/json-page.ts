import { and, asc, desc, eq, Placeholder, sql, type AnyColumn, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { AnyPgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Database } from './database.js';

/*
 * List pages rendered by the database as the JSON the API answers with. A list request used to
 * spend most of its CPU outside the query: the driver decoding each of 20 rows × 14 fields, drizzle
 * mapping them, the service renaming them and zod checking them again before JSON.stringify. Built
 * here, a page is one text value that the route sends as it is.
 */

/** A timestamp as `Date#toISOString` writes it (UTC, milliseconds, `Z`): the API's timestamps. */
export const isoTime = (column: AnyColumn) => sql<string>`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** One JSON object per row, with the API's keys; the keys are code, never input. */
export const jsonObject = (fields: Record<string, SQLWrapper>) =>
  sql`json_build_object(${sql.join(
    Object.entries(fields).map(([key, value]) => sql`${sql.raw(`'${key}'`)}, ${value}`),
    sql`, `,
  )})`;

/**
 * The objects of a page as one JSON array (text, so that no driver parses it), in `order`: the
 * page's own ORDER BY does not carry into an aggregate, the aggregate's does.
 */
export const jsonArray = (item: SQLWrapper, order: SQL[]) => sql<string>`coalesce(json_agg(${item} order by ${sql.join(order, sql`, `)}), '[]')::text`;

export interface JsonPageOptions {
  /** Rows of this table… */
  table: PgTable;
  /** …matching this… */
  where: SQL | undefined;
  /** …in the order of a column and the primary key as tie-breaker (an index holds both)… */
  orderBy: [AnyPgColumn, AnyPgColumn];
  direction: 'asc' | 'desc';
  /** …at most this many, each as this object. */
  limit: number;
  item: SQL;
  /**
   * Rows whose `column` is any of `values` (text): read as one index range per value, each cut at
   * `limit`, then merged. A filter on the whole ordered range would walk past every row of the
   * other values to fill a page.
   */
  anyOf?: { column: AnyPgColumn; values: string[] | Placeholder };
}

/**
 * One page of rows as the API's JSON array (the query's single row holds it in `json`). The page's
 * keys are found first and the rows read after: the keys come from the index alone where it
 * covers the filters (a title search reads titles from the index, not the rows it skips), and
 * only the page's rows are read whole.
 */
export function jsonPage(db: Database, { table, where, orderBy: [by, id], direction, limit, item, anyOf }: JsonPageOptions) {
  const order = direction === 'desc' ? desc : asc;
  const range = (condition: SQL | undefined) => db.select({ by, id }).from(table).where(condition).orderBy(order(by), order(id)).limit(literalLimit(limit));
  let keys;
  if (anyOf === undefined) {
    keys = range(where).as('page_keys');
  } else {
    const values = sql`unnest(${anyOf.values instanceof Placeholder ? anyOf.values : sql.param(anyOf.values)}::text[]) as any_of(value)`;
    const perValue = range(and(where, eq(anyOf.column, sql`any_of.value`))).as('per_value');
    keys = db
      .select({ by: perValue.by, id: perValue.id })
      .from(values)
      .crossJoinLateral(perValue)
      .orderBy(order(perValue.by), order(perValue.id))
      .limit(literalLimit(limit))
      .as('page_keys');
  }
  return db
    .select({ json: jsonArray(item, [order(keys.by), order(keys.id)]).as('json') })
    .from(keys)
    .innerJoin(table, eq(id, keys.id));
}

/**
 * A LIMIT written into the statement, not bound as a parameter: PostgreSQL cannot tell that a
 * generic plan with `LIMIT $n` reads a few rows, so it would plan a prepared statement again on
 * every call. (drizzle types `limit` as a number or a placeholder; it renders SQL as given.)
 */
export const literalLimit = (limit: number) => sql`${limit}`.inlineParams() as unknown as number;
