import type { z } from 'zod';
import { AppError } from '../lib/app-error.js';
import { isUuid } from '../lib/ids.js';
import { EMPTY_PAGE, type PullRequestRepository } from '../repositories/pull-request-repository.js';
import { noSuchOrganization, type OrgAccess } from './org-access.js';
import type { PullRequestDiffs } from './pull-request-diffs.js';
import type { listQuery } from '../routes/pull-requests/pull-requests-schemas.js';

type ListQuery = z.output<typeof listQuery>;

export class PullRequestsService {
  constructor(
    private readonly pullRequests: PullRequestRepository,
    private readonly diffs: PullRequestDiffs,
    private readonly access: OrgAccess,
  ) {}

  /** The unified diff of a pull request the user may see (GitHub's id or the internal id); 404 for any other. */
  async diff(userId: string, prId: string): Promise<string> {
    const pr = await this.pullRequests.findOwnedBySelector(userId, prId);
    if (pr === undefined) throw new AppError('NOT_FOUND', 'No such pull request');
    return this.diffs.of(pr);
  }

  /**
   * A page of the pull requests the user may see, or of one space of them (`?org=`), as the JSON
   * the route sends (built by the database). An organization the user is not in: 404. The page's
   * statement reads the membership itself and lists nothing to a non-member, so the role is read
   * apart only to tell an empty page from a stranger's (or an id that cannot be an organization's).
   */
  async list(userId: string, query: ListQuery, cursor = query.lastUpdatedAt): Promise<string> {
    const orgId = query.org === undefined || query.org === 'personal' ? undefined : query.org.toLowerCase();
    if (orgId !== undefined && !isUuid(orgId)) throw noSuchOrganization();
    const page = await this.pullRequests.listPage(userId, {
      space: query.org === 'personal' ? 'personal' : orgId === undefined ? undefined : { orgId },
      cursor,
      search: query.search,
      status: query.reviewStatus === 'all' ? undefined : query.reviewStatus,
      repositories: query.repo,
      order: query.order,
    });
    if (orgId !== undefined && page === EMPTY_PAGE) await this.access.role(orgId, userId);
    return page;
  }

  summary(userId: string, since: Date | undefined, search: string | undefined): Promise<string> {
    return this.pullRequests.summaryPage(userId, since, search);
  }
}
