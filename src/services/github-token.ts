import { GitHubApiError, type GitHubClient } from '../adapters/github/github-client.js';
import type { TokenOwner } from '../code-hosts/code-host.js';
import type { PullRequest } from '../db/schema/index.js';
import type { SecretBox } from '../lib/crypto/secret-box.js';
import type { Logger } from '../lib/logger.js';
import { installationCovers, type GitHubInstallationRepository } from '../repositories/github-installation-repository.js';
import type { UserRepository } from '../repositories/user-repository.js';
import type { GitHubAppRegistry } from './github-app-registry.js';
import { sealUserToken } from './user-token.js';

export interface GitHubTokensDeps {
  apps: GitHubAppRegistry;
  installations: GitHubInstallationRepository;
  users: UserRepository;
  github: GitHubClient;
  secretBox: SecretBox;
  /** `GITHUB_TOKEN`. */
  fallback: string | undefined;
  log: Logger;
}

/** The token a call about a pull request uses, and where it came from (an installation token is renewed on a 401). */
export interface PullRequestToken {
  token: string | undefined;
  installationId: number | null;
}

/** A user token is refreshed when it has less than this left (GitHub App user tokens live 8 hours). */
const REFRESH_MARGIN_MS = 5 * 60_000;

/**
 * The one rule for which token reads a pull request's repository (decisions.md §6 and §8): the
 * installation's token when the pull request came through an installation that still covers the
 * repository; else the author's own GitHub token when linked (refreshed when it is a GitHub App's
 * expiring token, decisions.md §13); else `GITHUB_TOKEN`; else none.
 */
export class GitHubTokens {
  private readonly refreshing = new Map<string, Promise<string | undefined>>();

  constructor(private readonly deps: GitHubTokensDeps) {}

  async forPullRequest(pr: Pick<PullRequest, 'installationId' | 'repositoryId' | 'repositoryName'>, owner: TokenOwner | undefined): Promise<PullRequestToken> {
    const app = await this.deps.apps.fresh();
    if (app !== undefined && pr.installationId !== null) {
      const installation = await this.deps.installations.find(pr.installationId);
      // Access lost (uninstalled, suspended, repository removed): no token is asked for.
      if (installationCovers(installation, { id: pr.repositoryId === null ? null : Number(pr.repositoryId), fullName: pr.repositoryName })) {
        return { token: await app.installationToken(pr.installationId), installationId: pr.installationId };
      }
    }
    const own = owner === undefined ? undefined : await this.userToken(owner);
    return { token: own ?? this.deps.fallback, installationId: null };
  }

  /** Runs a read with the pull request's token; an installation token GitHub refuses (401) is renewed once. */
  async read<T>(pr: Pick<PullRequest, 'installationId' | 'repositoryId' | 'repositoryName'>, owner: TokenOwner | undefined, call: (token: string | undefined) => Promise<T>): Promise<T> {
    const { token, installationId } = await this.forPullRequest(pr, owner);
    const app = this.deps.apps.current;
    try {
      return await call(token);
    } catch (error) {
      if (installationId === null || app === undefined || !(error instanceof GitHubApiError) || error.status !== 401) throw error;
      app.dropToken(installationId);
      return call(await app.installationToken(installationId));
    }
  }

  /** The user's own token; an expiring one is refreshed first (once per user at a time in this process). */
  private async userToken(owner: TokenOwner): Promise<string | undefined> {
    if (!owner.codehostToken) return undefined;
    if (!expiresSoon(owner)) return this.deps.secretBox.decrypt(owner.codehostToken);
    let pending = this.refreshing.get(owner.id);
    if (pending === undefined) {
      pending = this.refresh(owner.id).finally(() => this.refreshing.delete(owner.id));
      this.refreshing.set(owner.id, pending);
    }
    return pending;
  }

  /**
   * The row is read again first: another job (or process) may have refreshed it already, and a
   * refresh token works once. A token that cannot be refreshed is not used once it has expired.
   */
  private async refresh(userId: string): Promise<string | undefined> {
    const user = await this.deps.users.findById(userId);
    if (!user?.codehostToken) return undefined;
    const current = this.deps.secretBox.decrypt(user.codehostToken);
    if (!expiresSoon(user)) return current;
    const usable = user.codehostTokenExpiresAt!.getTime() > Date.now() ? current : undefined;
    const client = await this.deps.apps.oauthClient();
    if (client === undefined || user.codehostRefreshToken === null) return usable;
    try {
      const fresh = await this.deps.github.refreshUserToken(client, this.deps.secretBox.decrypt(user.codehostRefreshToken));
      await this.deps.users.update(userId, sealUserToken(this.deps.secretBox, fresh));
      return fresh.accessToken;
    } catch (error) {
      this.deps.log.warn({ err: error, userId }, "could not refresh a user's GitHub token");
      return usable;
    }
  }
}

const expiresSoon = (owner: Pick<TokenOwner, 'codehostTokenExpiresAt'>) => owner.codehostTokenExpiresAt !== null && owner.codehostTokenExpiresAt.getTime() - Date.now() < REFRESH_MARGIN_MS;
