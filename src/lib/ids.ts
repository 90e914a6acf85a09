import { sql, type AnyColumn, type SQL } from 'drizzle-orm';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const GITHUB_ID = /^\d{1,19}$/;

export const isUuid = (value: string) => UUID.test(value);

/** A pull request named by GitHub's id (digits) or the internal id (UUID), as the API accepts either. */
export type PullRequestSelector = { prId: number } | { id: string };

/**
 * The id the API names a pull request by (decisions.md §12), the one place that decides it: a
 * positive `pr_id` is GitHub's id and is shown as it is (as it always was); a negative one is an
 * internal key (`pull_request_key_seq`, every other host, whose ids collide across instances or
 * workspaces) and the record's own id (a UUID) is shown instead. No host is named: a new host's
 * keys are negative and take the UUID.
 */
export const apiPrId = (pr: { id: string; prId: number }): number | string => (pr.prId > 0 ? pr.prId : pr.id);

/** `apiPrId` in SQL, for pages the database renders as JSON: the same rule on the same two columns. */
export const apiPrIdSql = (table: { id: AnyColumn; prId: AnyColumn }): SQL => sql`case when ${table.prId} > 0 then to_json(${table.prId}) else to_json(${table.id}) end`;

export function parsePullRequestSelector(value: string | number): PullRequestSelector | undefined {
  const text = String(value).trim();
  if (GITHUB_ID.test(text)) return { prId: Number(text) };
  if (isUuid(text)) return { id: text.toLowerCase() };
  return undefined;
}
