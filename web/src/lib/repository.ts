/**
 * The code hosts the web app shows, one entry per host (the service's `provider` values): its name,
 * how it writes a change's number, its settings page, and how a change's address names its
 * repository. A new host is one entry here, its settings page and its route.
 */
export const HOSTS = {
  github: { name: 'GitHub', numberPrefix: '#', settings: '/settings/github', repository: /\/([^/]+\/[^/]+)\/pull\/\d+/ },
  gitlab: { name: 'GitLab', numberPrefix: '!', settings: '/settings/gitlab', repository: /^https?:\/\/[^/]+(?:\/[^/]+)*?\/((?:[^/]+\/)+[^/]+)\/-\/merge_requests\/\d+/ },
  bitbucket: { name: 'Bitbucket', numberPrefix: '#', settings: '/settings/bitbucket', repository: /^https?:\/\/[^/]+\/([^/]+\/[^/]+)\/pull-requests\/\d+/ },
} as const;

export type HostKind = keyof typeof HOSTS;

/** A record's host; records from before a second host existed carry no provider, and were GitHub's. */
export const hostOf = (provider: string | undefined) => (provider !== undefined && provider in HOSTS ? HOSTS[provider as HostKind] : HOSTS.github);

/** `owner/repo` from a change's address on its host (`…/owner/repo/pull/12`, `…/group/sub/project/-/merge_requests/5`, `…/workspace/slug/pull-requests/7`). */
export function repositoryOf(htmlUrl: string | null | undefined): string | undefined {
  if (!htmlUrl) return undefined;
  for (const host of Object.values<(typeof HOSTS)[HostKind]>(HOSTS)) {
    const match = host.repository.exec(htmlUrl);
    if (match) return match[1];
  }
  return undefined;
}

/** The code host's name as users know it (decisions.md §12). */
export const hostName = (provider: string | undefined) => hostOf(provider).name;

/** How the host writes a change's number: `!5` for a merge request, `#12` for a pull request. */
export const changeNumber = (provider: string | undefined, number: number) => `${hostOf(provider).numberPrefix}${number}`;
