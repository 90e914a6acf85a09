import type { z } from 'zod';
import { AppError } from '../lib/app-error.js';
import type { PullRequestRepository } from '../repositories/pull-request-repository.js';
import type { PullRequestDiffs } from './pull-request-diffs.js';
import type { listQuery } from '../routes/pull-requests/pull-requests-schemas.js';

type ListQuery = z.output<typeof listQuery>;

export class PullRequestsService {
  constructor(
    private readonly pullRequests: PullRequestRepository,
    private readonly diffs: PullRequestDiffs,
  ) {}

  /** The owner's pull request's unified diff (GitHub's id or the internal id); 404 for any other. */
  async diff(userId: string, prId: string): Promise<string> {
    const pr = await this.pullRequests.findOwnedBySelector(userId, prId);
    if (pr === undefined) throw new AppError('NOT_FOUND', 'No such pull request');
    return this.diffs.of(pr);
  }

  /** A page of the owner's pull requests as the JSON the route sends (built by the database). */
  list(userId: string, query: ListQuery, cursor = query.lastUpdatedAt): Promise<string> {
    return this.pullRequests.listPage(userId, {
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
