/**
 * Where a space's settings, keys and usage live in the API: the caller's own (`/workspace`,
 * `/byok`, `/usage`), or an organization's twins under `/orgs/:orgId` (decisions.md §15). The
 * pages are the same for both; only this prefix differs.
 */
export const spacePath = (orgId: string | undefined, path: '/workspace' | '/byok' | '/usage') => (orgId === undefined ? path : `/orgs/${encodeURIComponent(orgId)}${path}`);

/** The part of a query key naming the space. */
export const spaceKey = (orgId: string | undefined) => orgId ?? 'personal';
