const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const GITHUB_ID = /^\d{1,19}$/;

export const isUuid = (value: string) => UUID.test(value);

/** A pull request named by GitHub's id (digits) or the internal id (UUID), as the API accepts either. */
export type PullRequestSelector = { prId: number } | { id: string };

export function parsePullRequestSelector(value: string | number): PullRequestSelector | undefined {
  const text = String(value).trim();
  if (GITHUB_ID.test(text)) return { prId: Number(text) };
  if (isUuid(text)) return { id: text.toLowerCase() };
  return undefined;
}
