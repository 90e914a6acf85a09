import { HOSTS, hostOf } from './hosts';

/** `owner/repo` from a change's address on its host (`…/owner/repo/pull/12`, `…/group/sub/project/-/merge_requests/5`). */
export function repositoryOf(htmlUrl: string | null | undefined): string | undefined {
  if (!htmlUrl) return undefined;
  for (const host of Object.values(HOSTS)) {
    const match = host.repository.exec(htmlUrl);
    if (match) return match[1];
  }
  return undefined;
}

/** The code host's name as users know it (decisions.md §12). */
export const hostName = (provider: string | undefined) => hostOf(provider).name;

/** How the host writes a change's number: `!5` for a merge request, `#12` for a pull request. */
export const changeNumber = (provider: string | undefined, number: number) => `${hostOf(provider).numberPrefix}${number}`;
