/** `owner/repo` from a pull request's GitHub address (`…/owner/repo/pull/12`). */
export function repositoryOf(htmlUrl: string | null | undefined): string | undefined {
  const match = htmlUrl ? /\/([^/]+\/[^/]+)\/pull\/\d+/.exec(htmlUrl) : null;
  return match?.[1];
}
