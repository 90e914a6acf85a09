const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const GITHUB_ID = /^\d{1,19}$/;

export const isUuid = (value: string) => UUID.test(value);

/** A pull request named by GitHub's id (digits) or the internal id (UUID), as the API accepts either. */
export type PullRequestSelector = { prId: number } | { id: string };

/**
 * The id the API names a pull request by (decisions.md §12): GitHub's id for a GitHub pull request,
 * the record's own id (a UUID) for a GitLab merge request, whose ids collide across instances.
 */
export const apiPrId = (pr: { provider: string; id: string; prId: number }): number | string => (pr.provider === 'gitlab' ? pr.id : pr.prId);

export function parsePullRequestSelector(value: string | number): PullRequestSelector | undefined {
  const text = String(value).trim();
  if (GITHUB_ID.test(text)) return { prId: Number(text) };
  if (isUuid(text)) return { id: text.toLowerCase() };
  return undefined;
}
