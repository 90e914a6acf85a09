/**
 * The code hosts the web app shows, one entry per host (the service's `provider` values): its name,
 * how it writes a change's number, its settings page, and how a change's address names its
 * repository. A new host is one entry here, its settings page and its route.
 */
export const HOSTS = {
  github: { name: 'GitHub', numberPrefix: '#', settings: '/settings/github', repository: /\/([^/]+\/[^/]+)\/pull\/\d+/ },
  gitlab: { name: 'GitLab', numberPrefix: '!', settings: '/settings/gitlab', repository: /^https?:\/\/[^/]+(?:\/[^/]+)*?\/((?:[^/]+\/)+[^/]+)\/-\/merge_requests\/\d+/ },
} as const;

export type HostKind = keyof typeof HOSTS;

/** A record's host; records from before a second host existed carry no provider, and were GitHub's. */
export const hostOf = (provider: string | undefined) => (provider !== undefined && provider in HOSTS ? HOSTS[provider as HostKind] : HOSTS.github);
