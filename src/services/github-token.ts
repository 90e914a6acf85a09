import { GitHubApiError } from '../adapters/github/github-client.js';
import type { GitHubApp } from '../adapters/github/github-app.js';
import type { PullRequest, User } from '../db/schema/index.js';
import type { SecretBox } from '../lib/crypto/secret-box.js';
import { installationCovers, type GitHubInstallationRepository } from '../repositories/github-installation-repository.js';

export interface GitHubTokensDeps {
  app: GitHubApp | undefined;
  installations: GitHubInstallationRepository;
  secretBox: SecretBox;
  /** `GITHUB_TOKEN`. */
  fallback: string | undefined;
}

/** The token a call about a pull request uses, and where it came from (an installation token is renewed on a 401). */
export interface PullRequestToken {
  token: string | undefined;
  installationId: number | null;
}

/**
 * The one rule for which token reads a pull request's repository (decisions.md §6 and §8): the
 * installation's token when the pull request came through an installation that still covers the
 * repository; else the author's own GitHub token when linked; else `GITHUB_TOKEN`; else none.
 */
export class GitHubTokens {
  constructor(private readonly deps: GitHubTokensDeps) {}

  async forPullRequest(pr: Pick<PullRequest, 'installationId' | 'repositoryId' | 'repositoryName'>, owner: Pick<User, 'codehostToken'> | undefined): Promise<PullRequestToken> {
    const { app } = this.deps;
    if (app !== undefined && pr.installationId !== null) {
      const installation = await this.deps.installations.find(pr.installationId);
      // Access lost (uninstalled, suspended, repository removed): no token is asked for.
      if (installationCovers(installation, { id: pr.repositoryId === null ? null : Number(pr.repositoryId), fullName: pr.repositoryName })) {
        return { token: await app.installationToken(pr.installationId), installationId: pr.installationId };
      }
    }
    if (owner?.codehostToken) return { token: this.deps.secretBox.decrypt(owner.codehostToken), installationId: null };
    return { token: this.deps.fallback, installationId: null };
  }

  /** Runs a read with the pull request's token; an installation token GitHub refuses (401) is renewed once. */
  async read<T>(pr: Pick<PullRequest, 'installationId' | 'repositoryId' | 'repositoryName'>, owner: Pick<User, 'codehostToken'> | undefined, call: (token: string | undefined) => Promise<T>): Promise<T> {
    const { token, installationId } = await this.forPullRequest(pr, owner);
    try {
      return await call(token);
    } catch (error) {
      if (installationId === null || this.deps.app === undefined || !(error instanceof GitHubApiError) || error.status !== 401) throw error;
      this.deps.app.dropToken(installationId);
      return call(await this.deps.app.installationToken(installationId));
    }
  }
}
