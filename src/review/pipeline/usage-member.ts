import type { CommandTarget } from '../../code-hosts/code-host.js';
import type { ReadingHosts } from '../../code-hosts/code-hosts.js';
import type { PullRequest, User } from '../../db/schema/index.js';
import type { OrganizationRepository } from '../../repositories/organization-repository.js';

/**
 * Whom an organization's usage is attributed to (decisions.md §15): the member who triggered the
 * calls. A web re-run names the signed-in caller (only members see an organization's pull request);
 * a command or a re-requested check names its author's linked account while it is a member; a
 * webhook's review names the author when the author is a member. Otherwise none (null). The one place
 * that decides; a personal pull request names no one whatever it is given (the model router drops it).
 */

/** A run's member: the one the queue's payload names when a re-run or a command started it, else the webhook's rule. */
export function runMember(readers: Pick<ReadingHosts, 'authoredBy'>, run: { pr: PullRequest; owner: User; userIsMember: boolean }, triggered: string | null | undefined): string | null {
  if (run.pr.orgId === null) return null;
  if (triggered !== undefined) return triggered;
  // The pull request's user is its author only when the host links the author to that account: a
  // GitHub author without one leaves the installer there, a GitLab or Bitbucket change its connection's owner.
  return run.userIsMember && readers.authoredBy(run.pr, run.owner) ? run.pr.userId : null;
}

/** A command's member: the account its host links its author to, while a member of the pull request's organization. */
export async function commandMember(members: Pick<OrganizationRepository, 'roleOf'>, pr: PullRequest, target: Pick<CommandTarget, 'authorAccount'>): Promise<string | null> {
  if (pr.orgId === null || target.authorAccount === undefined) return null;
  const account = await target.authorAccount();
  if (account === null) return null;
  return (await members.roleOf(pr.orgId, account)) === undefined ? null : account;
}
