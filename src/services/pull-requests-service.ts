import type { z } from 'zod';
import { AppError } from '../lib/app-error.js';
import type { PullRequestRepository } from '../repositories/pull-request-repository.js';
import type { OrgAccess } from './org-access.js';
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
   * the route sends (built by the database). An organization the user is not in: 404.
   */
  async list(userId: string, query: ListQuery, cursor = query.lastUpdatedAt): Promise<string> {
    if (query.org !== undefined && query.org !== 'personal') await this.access.role(query.org, userId);
    return this.pullRequests.listPage(userId, {
      space: query.org === undefined || query.org === 'personal' ? query.org : { orgId: query.org.toLowerCase() },
      cursor,
      search: query.search,
      status: query.reviewStatus === 'all' ? undefined : query.reviewStatus,
      repositories: query.repo,
      order: query.order,
    });
  }

  summary(userId: string, since: Date | undefined, search: string | undefined): Promise<string> {
    return this.pullRequests.summaryPage(userId, since, search);
  }
}
