import { AppError } from '../../lib/app-error.js';

export interface GitHubUser {
  id: number;
  login: string;
  name: string | null;
  email: string | null;
}

export interface GitHubClientOptions {
  /** `GITHUB_URL`: the web host (OAuth pages and token exchange). */
  webUrl: string;
  /** `GITHUB_API_URL`: the REST API. */
  apiUrl: string;
  timeoutMs?: number;
}

/** An OAuth app's, or a GitHub App's, client credentials (decisions.md §5 and §13). */
export interface OAuthClient {
  clientId: string;
  clientSecret: string;
}

/**
 * A user's GitHub token. A GitHub App's user tokens expire (8 hours) and come with a refresh token;
 * an OAuth app's do not expire, and both are null.
 */
export interface UserToken {
  accessToken: string;
  refreshToken: string | null;
  expiresAt: Date | null;
}

/** What `POST /app-manifests/{code}/conversions` answers: the new App and its credentials. */
export interface ManifestConversion {
  id: number;
  slug: string;
  name: string;
  html_url: string;
  owner: { login: string; type: string } | null;
  pem: string;
  webhook_secret: string | null;
  client_id: string;
  client_secret: string;
}

/** GitHub answered, but not with what was asked (a refused code, a revoked token, a missing repo). */
export class GitHubApiError extends Error {
  override name = 'GitHubApiError';
  constructor(
    readonly status: number,
    message: string,
    /** Set when GitHub asked to wait (a 403 or 429 rate limit with `retry-after` or `x-ratelimit-reset`). */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

const USER_AGENT = 'pr-review-service';
/** A repository archive of 200 MiB at a slow 2 MB/s. */
const ARCHIVE_TIMEOUT_MS = 120_000;

export interface GitTree {
  truncated: boolean;
  files: Array<{ path: string; size: number }>;
}
const DIFF = 'application/vnd.github.diff';

/** A repository's full name or a file's path, each segment encoded and the slashes kept. */
const encodePath = (path: string) => path.split('/').map(encodeURIComponent).join('/');

/**
 * The calls this service makes to GitHub or GitHub Enterprise, all against the configured hosts so
 * tests can point them at a local fake.
 */
export class GitHubClient {
  private readonly timeoutMs: number;

  constructor(private readonly options: GitHubClientOptions) {
    this.timeoutMs = options.timeoutMs ?? 10_000;
  }

  authorizeUrl(client: OAuthClient, state: string, redirectUri: string, scope: string): string {
    const url = new URL(`${this.options.webUrl}/login/oauth/authorize`);
    url.search = new URLSearchParams({ client_id: client.clientId, redirect_uri: redirectUri, scope, state }).toString();
    return url.toString();
  }

  /** Trades the callback's code for a user token. */
  exchangeCode(client: OAuthClient, code: string, redirectUri: string): Promise<UserToken> {
    return this.userToken({ client_id: client.clientId, client_secret: client.clientSecret, code, redirect_uri: redirectUri });
  }

  /** A new user token for an expired GitHub App user token (the refresh token is spent). */
  refreshUserToken(client: OAuthClient, refreshToken: string): Promise<UserToken> {
    return this.userToken({ client_id: client.clientId, client_secret: client.clientSecret, grant_type: 'refresh_token', refresh_token: refreshToken });
  }

  /** The manifest flow's last step: GitHub creates the App and hands its credentials over, once. */
  async convertManifest(code: string): Promise<ManifestConversion> {
    const path = `/app-manifests/${encodeURIComponent(code)}/conversions`;
    const response = await this.fetch(`${this.options.apiUrl}${path}`, {
      method: 'POST',
      headers: { accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28' },
    });
    if (!response.ok) {
      const body = (await response.json().catch(() => ({}))) as { message?: string };
      throw new GitHubApiError(response.status, body.message ?? `GitHub answered ${response.status} for the manifest conversion`);
    }
    return (await response.json()) as ManifestConversion;
  }

  /** GitHub reports a bad code or refresh token with a 200 and an `error`. */
  private async userToken(parameters: Record<string, string>): Promise<UserToken> {
    const response = await this.fetch(`${this.options.webUrl}/login/oauth/access_token`, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/json' },
      body: JSON.stringify(parameters),
    });
    const body = (await response.json().catch(() => ({}))) as { access_token?: string; refresh_token?: string; expires_in?: number; error?: string; error_description?: string };
    if (!response.ok || typeof body.access_token !== 'string') {
      throw new GitHubApiError(response.ok ? 400 : response.status, body.error_description ?? body.error ?? `token exchange failed with ${response.status}`);
    }
    return {
      accessToken: body.access_token,
      refreshToken: typeof body.refresh_token === 'string' ? body.refresh_token : null,
      expiresAt: typeof body.expires_in === 'number' ? new Date(Date.now() + body.expires_in * 1000) : null,
    };
  }

  async getUser(token: string): Promise<GitHubUser> {
    const user = await this.api<GitHubUser>('/user', token);
    return { id: user.id, login: user.login, name: user.name ?? null, email: user.email ?? null };
  }

  /** The primary verified address, for accounts that keep their email private. */
  async getPrimaryEmail(token: string): Promise<string | null> {
    const emails = await this.api<Array<{ email: string; primary: boolean; verified: boolean }>>('/user/emails', token);
    return emails.find((entry) => entry.primary && entry.verified)?.email ?? null;
  }

  /** A pull request's unified diff, as GitHub renders it (`git diff base...head`). */
  async pullRequestDiff(fullName: string, number: number, token: string | undefined): Promise<string> {
    return (await this.request(`/repos/${encodePath(fullName)}/pulls/${number}`, token, DIFF)).text();
  }

  /**
   * The diff between two commits, for reviewing what a push changed. Null when GitHub cannot
   * compare them (the older commit was force-pushed away).
   */
  compareDiff(fullName: string, base: string, head: string, token: string | undefined): Promise<string | null> {
    const path = `/repos/${encodePath(fullName)}/compare/${encodeURIComponent(base)}...${encodeURIComponent(head)}`;
    return this.textUnless([404, 422], path, token, DIFF);
  }

  /** A file's content at a commit, or null when it does not exist there. */
  fileContent(fullName: string, path: string, ref: string, token: string | undefined): Promise<string | null> {
    return this.textUnless([404], `/repos/${encodePath(fullName)}/contents/${encodePath(path)}?ref=${encodeURIComponent(ref)}`, token, 'application/vnd.github.raw');
  }

  /**
   * The commit's files as a gzipped tar (one top folder `owner-repo-sha/`), streamed: GitHub
   * redirects to its archive host, which fetch follows. The body may take minutes for a large
   * repository, hence its own time limit.
   */
  async tarball(fullName: string, commit: string, token: string | undefined, timeoutMs = ARCHIVE_TIMEOUT_MS): Promise<ReadableStream<Uint8Array>> {
    const response = await this.request(`/repos/${encodePath(fullName)}/tarball/${encodeURIComponent(commit)}`, token, 'application/vnd.github+json', timeoutMs);
    if (!response.body) throw new GitHubApiError(502, 'GitHub sent an empty archive');
    return response.body;
  }

  /** Every file of a commit with its size (`truncated` when GitHub cut the listing short). */
  async tree(fullName: string, commit: string, token: string | undefined): Promise<GitTree> {
    const tree = await this.api<{ truncated?: boolean; tree: Array<{ path: string; type: string; size?: number }> }>(
      `/repos/${encodePath(fullName)}/git/trees/${encodeURIComponent(commit)}?recursive=1`,
      token,
    );
    return {
      truncated: tree.truncated === true,
      files: tree.tree.filter((entry) => entry.type === 'blob').map((entry) => ({ path: entry.path, size: entry.size ?? 0 })),
    };
  }

  /** The body as text, or null when GitHub answers with one of `missing` (what does not exist is no error). */
  private async textUnless(missing: number[], path: string, token: string | undefined, accept: string): Promise<string | null> {
    try {
      return await (await this.request(path, token, accept)).text();
    } catch (error) {
      if (error instanceof GitHubApiError && missing.includes(error.status)) return null;
      throw error;
    }
  }

  private async api<T>(path: string, token: string | undefined, accept = 'application/vnd.github+json'): Promise<T> {
    const response = await this.request(path, token, accept);
    return (await response.json()) as T;
  }

  private async request(path: string, token: string | undefined, accept: string, timeoutMs = this.timeoutMs): Promise<Response> {
    const headers: Record<string, string> = { accept, 'x-github-api-version': '2022-11-28' };
    if (token !== undefined) headers.authorization = `Bearer ${token}`;
    const response = await this.fetch(`${this.options.apiUrl}${path}`, { headers }, timeoutMs);
    if (!response.ok) {
      const body = (await response.json().catch(() => ({}))) as { message?: string };
      throw new GitHubApiError(response.status, body.message ?? `GitHub answered ${response.status} for ${path}`);
    }
    return response;
  }

  private async fetch(url: string, init: RequestInit, timeoutMs = this.timeoutMs): Promise<Response> {
    try {
      return await fetch(url, { ...init, headers: { 'user-agent': USER_AGENT, ...(init.headers as Record<string, string>) }, signal: AbortSignal.timeout(timeoutMs) });
    } catch (error) {
      // Refused, reset or timed out: GitHub is down for us, which is neither the caller's fault nor a bug.
      throw new AppError('UNAVAILABLE', `GitHub could not be reached (${(error as Error).name})`);
    }
  }
}
