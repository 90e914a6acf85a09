import type { GitHubClient } from '../adapters/github/github-client.js';
import type { PullRequest } from '../db/schema/index.js';
import type { PullRequestRepository } from '../repositories/pull-request-repository.js';
import type { UserRepository } from '../repositories/user-repository.js';
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
    },
  ) {}

  async of(pr: PullRequest): Promise<string> {
    if (pr.diffContent !== null) return pr.diffContent;
    const owner = await this.deps.users.findById(pr.userId);
    const diff = await this.deps.tokens.read(pr, owner, (token) => this.deps.github.pullRequestDiff(pr.repositoryName, pr.prNumber, token));
    await this.deps.pullRequests.cacheDiff(pr.id, diff);
    return diff;
  }
}
