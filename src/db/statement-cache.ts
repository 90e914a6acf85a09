import { fillPlaceholders } from 'drizzle-orm';
import type { DatabaseHandle } from './database.js';

interface BuiltQuery {
  sql: string;
  params: unknown[];
}

/**
 * Statements built once for each shape of a query (which of its filters are present), then run
 * with each request's values: drizzle builds a query's SQL anew on every call, a real share of a
 * small request's CPU. Run by the shape's name (`DatabaseHandle.prepared`), PostgreSQL also parses
 * it once per connection, and plans it once where a generic plan serves (so a query whose best
 * plan would depend on a value is written with one plan for every value: jsonPage's search).
 */
export class StatementCache {
  private readonly built = new Map<string, BuiltQuery>();

  constructor(private readonly database: DatabaseHandle) {}

  /** Runs the statement of `shape` with these placeholder values; `build` makes its query the first time. */
  run<T>(shape: string, build: () => { toSQL(): BuiltQuery }, values: Record<string, unknown>): Promise<T[]> {
    let query = this.built.get(shape);
    if (query === undefined) {
      query = build().toSQL();
      this.built.set(shape, query);
    }
    return this.database.prepared<T>(shape, query.sql, fillPlaceholders(query.params, values));
  }
}
