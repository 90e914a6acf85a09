import type { GitHubClient } from '../adapters/github/github-client.js';
import type { PullRequest } from '../db/schema/index.js';
import type { PullRequestRepository } from '../repositories/pull-request-repository.js';
import type { UserRepository } from '../repositories/user-repository.js';
import type { ReadingHosts } from '../code-hosts/code-hosts.js';
import { AppError } from '../lib/app-error.js';
import type { TokenOwner } from '../code-hosts/code-host.js';
import type { GitHubTokens } from './github-token.js';

/**
 * A pull request's diff outside the review pipeline (the chat's getDiff, the web app's diff view):
 * the cached one, else read from GitHub with the pipeline's token rule and cached.
 */
export class PullRequestDiffs {
  constructor(
    private readonly deps: {
      pullRequests: PullRequestRepository;
      users: UserRepository;
      github: GitHubClient;
      tokens: GitHubTokens;
      /** Merge requests are read through their code host (GitLab). */
      hosts: () => ReadingHosts;
    },
  ) {}

  async of(pr: PullRequest): Promise<string> {
    if (pr.diffContent !== null) return pr.diffContent;
    const owner = await this.deps.users.findById(pr.userId);
    const diff = pr.provider === 'github' ? await this.deps.tokens.read(pr, owner, (token) => this.deps.github.pullRequestDiff(pr.repositoryName, pr.prNumber, token)) : await this.hostDiff(pr, owner);
    await this.deps.pullRequests.cacheDiff(pr.id, diff);
    return diff;
  }

  /** The pipeline's reader answers for a job (retry or give up); here the caller is told to try later. */
  private async hostDiff(pr: PullRequest, owner: TokenOwner | undefined): Promise<string> {
    try {
      return await (await this.deps.hosts().reader(pr, owner)).changeDiff();
    } catch (error) {
      throw new AppError('UNAVAILABLE', `${pr.provider === 'gitlab' ? 'GitLab' : 'The code host'} did not give the diff (${(error as Error).message}); try again later`);
    }
  }
}
