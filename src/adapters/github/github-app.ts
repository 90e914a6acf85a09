import { createAppAuth } from '@octokit/auth-app';
import { graphql as octokitGraphql } from '@octokit/graphql';
import { request as octokitRequest } from '@octokit/request';
import { RequestError } from '@octokit/request-error';
import { Octokit } from '@octokit/rest';
import type { GitHubAppConfig } from '../../config/config.js';
import { AppError } from '../../lib/app-error.js';
import { GitHubApiError } from './github-client.js';

export interface GitHubAppOptions {
  app: GitHubAppConfig;
  /** `GITHUB_URL`: install links; GraphQL lives at `GITHUB_URL/api/graphql` on GitHub Enterprise. */
  webUrl: string;
  /** `GITHUB_API_URL`: REST, the token exchange and (on github.com) GraphQL at `/graphql`. */
  apiUrl: string;
  timeoutMs?: number;
}

/** Tokens are used until this long before GitHub's `expires_at` (decisions.md §8). */
const TOKEN_MARGIN_MS = 5 * 60_000;
const USER_AGENT = 'pr-review-service';
/** Octokit logs every failed request to the console; the callers decide what a failure means and log it. */
const QUIET = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

interface CachedToken {
  token: string;
  usableUntil: number;
}

/**
 * The GitHub App's identity (decisions.md §8): a JWT (RS256, made by `@octokit/auth-app`) buys an
 * installation token, cached until five minutes before it expires; a 401 drops it and the call is
 * tried once more with a new one. REST through `@octokit/rest`, GraphQL through `@octokit/graphql`,
 * both on the configured hosts (GitHub Enterprise, the tests' fake).
 */
export class GitHubApp {
  readonly slug: string;
  readonly id: string;
  private readonly auth: ReturnType<typeof createAppAuth>;
  private readonly tokens = new Map<number, CachedToken>();
  private readonly fetching = new Map<number, Promise<CachedToken>>();
  private readonly graphqlBase: string;
  private readonly fetch: typeof fetch;

  constructor(private readonly options: GitHubAppOptions) {
    this.slug = options.app.slug;
    this.id = options.app.id;
    const timeoutMs = options.timeoutMs ?? 15_000;
    this.fetch = (input, init) => fetch(input, { ...init, signal: init?.signal ?? AbortSignal.timeout(timeoutMs) });
    this.auth = createAppAuth({
      appId: options.app.id,
      privateKey: options.app.privateKey,
      request: octokitRequest.defaults({ baseUrl: options.apiUrl, headers: { 'user-agent': USER_AGENT }, request: { fetch: this.fetch } }),
    });
    // github.com serves GraphQL at api.github.com/graphql; GitHub Enterprise at <host>/api/graphql
    // while its REST API is <host>/api/v3. `@octokit/graphql` appends `/graphql` to its base.
    this.graphqlBase = options.apiUrl.endsWith('/api/v3') ? `${options.webUrl}/api` : options.apiUrl;
  }

  /** Where a person installs the App on their account or organization. */
  installUrl(): string {
    return `${this.options.webUrl}/apps/${encodeURIComponent(this.slug)}/installations/new`;
  }

  /** The bot account the App posts as (`<slug>[bot]`): its own comments are never commands. */
  get botLogin(): string {
    return `${this.slug}[bot]`;
  }

  /** An installation token, from the cache while it has more than five minutes left. */
  async installationToken(installationId: number): Promise<string> {
    const cached = this.tokens.get(installationId);
    if (cached !== undefined && cached.usableUntil > Date.now()) return cached.token;
    let pending = this.fetching.get(installationId);
    if (pending === undefined) {
      pending = this.newToken(installationId).finally(() => this.fetching.delete(installationId));
      this.fetching.set(installationId, pending);
    }
    return (await pending).token;
  }

  /** Forgets an installation's token (GitHub refused it, or the App lost access). */
  dropToken(installationId: number): void {
    this.tokens.delete(installationId);
  }

  /**
   * Runs `call` with the installation's token; when GitHub answers 401 (a token revoked before
   * its time), drops it and runs `call` once more with a new one.
   */
  async withToken<T>(installationId: number, call: (token: string) => Promise<T>): Promise<T> {
    const token = await this.installationToken(installationId);
    try {
      return await call(token);
    } catch (error) {
      if (statusOf(error) !== 401) throw error;
      this.dropToken(installationId);
      return call(await this.installationToken(installationId));
    }
  }

  /** REST and GraphQL as the installation, with the token rules of `withToken`; errors become GitHubApiError. */
  async asInstallation<T>(installationId: number, call: (api: InstallationApi) => Promise<T>): Promise<T> {
    try {
      return await this.withToken(installationId, (token) =>
        call({
          rest: new Octokit({ auth: token, baseUrl: this.options.apiUrl, userAgent: USER_AGENT, request: { fetch: this.fetch }, log: QUIET }),
          graphql: octokitGraphql.defaults({ baseUrl: this.graphqlBase, headers: { authorization: `token ${token}`, 'user-agent': USER_AGENT }, request: { fetch: this.fetch } }),
        }),
      );
    } catch (error) {
      throw toGitHubError(error);
    }
  }

  private async newToken(installationId: number): Promise<CachedToken> {
    try {
      const auth = await this.auth({ type: 'installation', installationId, refresh: true });
      const entry = { token: auth.token, usableUntil: Date.parse(auth.expiresAt) - TOKEN_MARGIN_MS };
      this.tokens.set(installationId, entry);
      return entry;
    } catch (error) {
      throw toGitHubError(error);
    }
  }
}

export interface InstallationApi {
  rest: Octokit;
  graphql: typeof octokitGraphql;
}

function statusOf(error: unknown): number | undefined {
  if (error instanceof RequestError || error instanceof GitHubApiError) return error.status;
  return undefined;
}

/**
 * Octokit's errors as the service's: GitHub's status and message, how long GitHub asked to wait on
 * a rate limit, and a network failure as "GitHub unreachable". GraphQL errors (a 200 carrying
 * `errors`) become a 422.
 */
export function toGitHubError(error: unknown): Error {
  if (error instanceof GitHubApiError || error instanceof AppError) return error;
  if (error instanceof RequestError) {
    if (error.status === 500 && error.response === undefined) {
      return new AppError('UNAVAILABLE', `GitHub could not be reached (${error.message})`);
    }
    const headers = error.response?.headers ?? {};
    const data = error.response?.data as { message?: string } | undefined;
    return new GitHubApiError(error.status, data?.message ?? error.message, rateLimitWait(error.status, headers));
  }
  if (error instanceof Error && error.name === 'GraphqlResponseError') return new GitHubApiError(422, error.message);
  return error instanceof Error ? error : new Error(String(error));
}

/** A 403 or 429 that GitHub says to wait out: `retry-after` seconds, or until `x-ratelimit-reset`. */
function rateLimitWait(status: number, headers: Record<string, string | number | undefined>): number | undefined {
  if (status !== 403 && status !== 429) return undefined;
  const retryAfter = Number(headers['retry-after']);
  if (Number.isFinite(retryAfter) && retryAfter >= 0) return retryAfter * 1000;
  const reset = Number(headers['x-ratelimit-reset']);
  if (headers['x-ratelimit-remaining'] !== undefined && String(headers['x-ratelimit-remaining']) !== '0') return undefined;
  if (Number.isFinite(reset) && reset > 0) return Math.max(0, reset * 1000 - Date.now());
  return undefined;
}
