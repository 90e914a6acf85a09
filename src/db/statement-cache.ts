import { createHash } from 'node:crypto';
import { fillPlaceholders } from 'drizzle-orm';
import type { DatabaseHandle } from './database.js';

interface BuiltQuery {
  sql: string;
  params: unknown[];
}

/** PostgreSQL's longest identifier: a longer statement name is cut there, and two cut alike would share one statement. */
const MAX_NAME = 63;

/** The shape's name as PostgreSQL keeps it: as written when it fits, else its start and a hash of the whole. */
export function statementName(shape: string): string {
  if (shape.length <= MAX_NAME) return shape;
  const hash = createHash('sha1').update(shape).digest('hex').slice(0, 16);
  return `${shape.slice(0, MAX_NAME - hash.length - 1)}_${hash}`;
}

/**
 * Statements built once for each shape of a query (which of its filters are present), then run
 * with each request's values: drizzle builds a query's SQL anew on every call, a real share of a
 * small request's CPU. Run by the shape's name (`DatabaseHandle.prepared`), PostgreSQL also parses
 * it once per connection, and plans it once where a generic plan serves (so a query whose best
 * plan would depend on a value is written with one plan for every value: jsonPage's search).
 */
export class StatementCache {
  private readonly built = new Map<string, BuiltQuery & { name: string }>();

  constructor(private readonly database: DatabaseHandle) {}

  /** Runs the statement of `shape` with these placeholder values; `build` makes its query the first time. */
  run<T>(shape: string, build: () => { toSQL(): BuiltQuery }, values: Record<string, unknown>): Promise<T[]> {
    let query = this.built.get(shape);
    if (query === undefined) {
      query = { ...build().toSQL(), name: statementName(shape) };
      this.built.set(shape, query);
    }
    return this.database.prepared<T>(query.name, query.sql, fillPlaceholders(query.params, values));
  }
}
