import type { z } from 'zod';
import { GitHubApiError } from '../../adapters/github/github-client.js';
import { AppError } from '../../lib/app-error.js';
import type { PullRequestRepository } from '../../repositories/pull-request-repository.js';
import type { PullRequestDiffs } from '../../services/pull-request-diffs.js';
import type { listItem, listQuery, summaryItem } from './pull-requests-schemas.js';

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
    try {
      return await this.diffs.of(pr);
    } catch (error) {
      if (error instanceof GitHubApiError) throw new AppError('UNAVAILABLE', `GitHub did not give the diff (${error.status}); try again later`);
      throw error;
    }
  }

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
