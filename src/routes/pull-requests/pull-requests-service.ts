import type { z } from 'zod';
import type { PullRequestRepository } from '../../repositories/pull-request-repository.js';
import type { listItem, listQuery, summaryItem } from './pull-requests-schemas.js';

type ListQuery = z.output<typeof listQuery>;

export class PullRequestsService {
  constructor(private readonly pullRequests: PullRequestRepository) {}

  async list(userId: string, query: ListQuery, cursor = query.lastUpdatedAt): Promise<Array<z.input<typeof listItem>>> {
    const rows = await this.pullRequests.list(userId, {
      cursor,
      search: query.search,
      status: query.reviewStatus === 'all' ? undefined : query.reviewStatus,
      repositories: query.repo,
      order: query.order,
    });
    return rows.map((row) => ({
      title: row.title,
      prId: row.prId,
      number: row.prNumber,
      repositoryName: row.repositoryName,
      diff: row.diff,
      additions: row.additions,
      deletions: row.deletions,
      status: row.reviewStatus,
      createdAt: row.createdAt.toISOString(),
      headBranch: row.headBranch,
      baseBranch: row.baseBranch,
      updatedAt: row.updatedAt.toISOString(),
      htmlUrl: row.htmlUrl,
    }));
  }

  async summary(userId: string, since: Date | undefined, search: string | undefined): Promise<Array<z.input<typeof summaryItem>>> {
    const rows = await this.pullRequests.summary(userId, since, search);
    return rows.map((row) => ({ id: row.id, prId: row.prId, number: row.prNumber, title: row.title, createdAt: row.createdAt.toISOString(), htmlUrl: row.htmlUrl }));
  }
}
