import { fillPlaceholders } from 'drizzle-orm';
import type { DatabaseHandle } from './database.js';

/** A statement ready to run with the values of its placeholders. */
export interface Runnable<T> {
  execute(values?: Record<string, unknown>): Promise<T>;
}

/**
 * A drizzle query with placeholders as a statement of the database: its SQL is built once, and
 * each call runs it by name (`DatabaseHandle.prepared`) with that call's values.
 */
export function statementOf<T>(database: DatabaseHandle, name: string, query: { toSQL(): { sql: string; params: unknown[] } }): Runnable<T[]> {
  const { sql, params } = query.toSQL();
  return { execute: (values = {}) => database.prepared<T>(name, sql, fillPlaceholders(params, values)) };
}

/**
 * Statements built once for each shape of a query (which of its filters are present), then run
 * with each request's values: drizzle builds a query's SQL anew on every call, a real share of a
 * small request's CPU. Prepared under a name, PostgreSQL also parses it once per connection, and
 * plans it once where a generic plan serves (so a query whose best plan would depend on a value
 * is written with one plan for every value: jsonPage's search).
 */
export class StatementCache {
  private readonly statements = new Map<string, Runnable<unknown>>();

  /** The statement of this shape, prepared by `prepare` the first time under the name it is given. */
  of<T>(shape: string, prepare: (name: string) => Runnable<T>): Runnable<T> {
    let statement = this.statements.get(shape);
    if (statement === undefined) {
      statement = prepare(shape);
      this.statements.set(shape, statement);
    }
    return statement as Runnable<T>;
  }
}
