import { getTableColumns, sql, type SQL } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';

/** `SET col = excluded.col` for an upsert, for every column of `table` but those listed. */
export function excludedExcept<T extends PgTable>(table: T, ...keep: Array<keyof T['_']['columns']>): Record<string, SQL> {
  const set: Record<string, SQL> = {};
  for (const [key, column] of Object.entries(getTableColumns(table))) {
    if (!keep.includes(key)) set[key] = sql.raw(`excluded."${column.name}"`);
  }
  return set;
}
