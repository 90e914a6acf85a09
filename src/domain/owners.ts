/**
 * Whose settings, keys, allowance and usage (decisions.md §15): a user's personal space, or an
 * organization's. The personal routers and their organization twins are the same code over this.
 */
export type Owner = { kind: 'user'; id: string } | { kind: 'org'; id: string };

export const personal = (userId: string): Owner => ({ kind: 'user', id: userId });

export const organization = (orgId: string): Owner => ({ kind: 'org', id: orgId });

/** A key naming the owner in caches and statement names: the user's id alone (as before organizations), `org:<id>` else. */
export const ownerKey = (owner: Owner) => (owner.kind === 'user' ? owner.id : `org:${owner.id}`);
