import type { PullRequest } from '../db/schema/index.js';
import type { PullRequestRepository } from '../repositories/pull-request-repository.js';
import type { UserRepository } from '../repositories/user-repository.js';
import type { CodeHosts } from '../code-hosts/code-hosts.js';
import { AppError } from '../lib/app-error.js';

/**
 * A pull request's diff outside the review pipeline (the chat's getDiff, the web app's diff view):
 * the cached one, else read through its code host with the pipeline's credentials, and cached.
 */
export class PullRequestDiffs {
  constructor(
    private readonly deps: {
      pullRequests: PullRequestRepository;
      users: UserRepository;
      hosts: () => Pick<CodeHosts, 'of' | 'reader'>;
    },
  ) {}

  async of(pr: PullRequest): Promise<string> {
    if (pr.diffContent !== null) return pr.diffContent;
    const owner = await this.deps.users.findById(pr.userId);
    const diff = await this.hostDiff(pr, owner);
    await this.deps.pullRequests.cacheDiff(pr.id, diff);
    return diff;
  }

  /** The pipeline's reader answers for a job (retry or give up); here the caller is told to try later. */
  private async hostDiff(pr: PullRequest, owner: Parameters<CodeHosts['reader']>[1]): Promise<string> {
    try {
      return await (await this.deps.hosts().reader(pr, owner)).changeDiff();
    } catch (error) {
      throw new AppError('UNAVAILABLE', `${this.deps.hosts().of(pr).name} did not give the diff (${(error as Error).message}); try again later`);
    }
  }
}
