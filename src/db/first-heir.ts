import { sql, type SQL } from 'drizzle-orm';

/**
 * The first of `heirs` (user ids, in order) for whom `holds(heir)` finds no row, else `fallback`:
 * who receives a connection a leaving member held for an organization (decisions.md §15) when a
 * user may hold one connection of a repository only. `holds` is a `select` over the heir, which is
 * SQL naming a uuid.
 */
export const firstHeir = (heirs: readonly string[], holds: (heir: SQL) => SQL, fallback: SQL): SQL =>
  sql`coalesce((select h.id::uuid from json_array_elements_text(${JSON.stringify(heirs)}::json) with ordinality as h(id, n) where not exists (${holds(sql`h.id::uuid`)}) order by h.n limit 1), ${fallback})`;
