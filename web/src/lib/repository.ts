/** `owner/repo` from a pull request's GitHub address (`…/owner/repo/pull/12`) or a merge request's GitLab one (`…/group/sub/project/-/merge_requests/5`). */
export function repositoryOf(htmlUrl: string | null | undefined): string | undefined {
  if (!htmlUrl) return undefined;
  const gitlab = /^https?:\/\/[^/]+(?:\/[^/]+)*?\/((?:[^/]+\/)+[^/]+)\/-\/merge_requests\/\d+/.exec(htmlUrl);
  if (gitlab) return gitlab[1];
  return /\/([^/]+\/[^/]+)\/pull\/\d+/.exec(htmlUrl)?.[1];
}

/** The code host's name as users know it (decisions.md §12). */
export const hostName = (provider: string | undefined) => (provider === 'gitlab' ? 'GitLab' : 'GitHub');

/** How the host writes a change's number: `!5` for a merge request, `#12` for a pull request. */
export const changeNumber = (provider: string | undefined, number: number) => `${provider === 'gitlab' ? '!' : '#'}${number}`;
