/**
 * Whose settings, keys, allowance and usage (decisions.md §15): a user's personal space, or an
 * organization's. The personal routers and their organization twins are the same code over this.
 */
export type Owner = { kind: 'user'; id: string } | { kind: 'org'; id: string };

export const personal = (userId: string): Owner => ({ kind: 'user', id: userId });

export const organization = (orgId: string): Owner => ({ kind: 'org', id: orgId });

/** A key naming the owner in caches and statement names: the user's id alone (as before organizations), `org:<id>` else. */
export const ownerKey = (owner: Owner) => (owner.kind === 'user' ? owner.id : `org:${owner.id}`);

/**
 * Who owns a pull request, and so whose settings, keys, allowance and spend limit pay for its
 * reviews, verifications and commands (decisions.md §15): its organization when it has one, else
 * its user. The one place the review pipeline asks.
 */
export const pullRequestOwner = (pr: { userId: string; orgId: string | null }): Owner => (pr.orgId === null ? personal(pr.userId) : organization(pr.orgId));

/** The spend limit as the refusal writes it: two decimals, more when under a cent. */
export const limitDollars = (limit: number) => (limit === 0 || limit >= 0.01 ? limit.toFixed(2) : String(limit));

/** decisions.md §15's reason, word for word: a review's failure, a check's summary, a command's answer. */
export const spendLimitReason = (limit: number) => `the organization's monthly spend limit of $${limitDollars(limit)} is reached`;
