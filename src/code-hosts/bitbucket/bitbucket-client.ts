import { request as undiciRequest, type Dispatcher } from 'undici';
import type { z } from 'zod';
import {
  BitbucketApiError,
  BitbucketConnectionBrokenError,
  BitbucketDiffTooLargeError,
  BitbucketRateLimitedError,
  BitbucketRefusedPositionError,
  BitbucketUnreachableError,
  bitbucketReason,
  bitbucketWaitMs,
} from './bitbucket-errors.js';
import {
  bitbucketAccountSchema,
  bitbucketBuildStatusSchema,
  bitbucketCommentSchema,
  bitbucketCommitSchema,
  bitbucketDiffstatSchema,
  bitbucketHookSchema,
  bitbucketPermissionSchema,
  bitbucketPullRequestSchema,
  bitbucketRepositorySchema,
  bitbucketSourceEntrySchema,
  pageSchema,
  type BitbucketComment,
  type BitbucketDiffstat,
  type BitbucketSourceEntry,
} from './bitbucket-schemas.js';

/** `BITBUCKET_API_URL`'s default (decisions.md §16). */
export const BITBUCKET_API_URL = 'https://api.bitbucket.org/2.0';

/**
 * A connection's credentials (decisions.md §16, facts §5): a repository, project or workspace
 * access token (Bearer), or an Atlassian API token with its account's email (Basic).
 */
export type BitbucketAuth = { kind: 'access-token'; token: string } | { kind: 'api-token'; email: string; token: string };

/** Where and as whom: one repository of a connection. */
export interface BitbucketTarget {
  auth: BitbucketAuth;
  workspace: string;
  repoSlug: string;
}

export interface BitbucketClientOptions {
  /** `BITBUCKET_API_URL`; the only origin a token is ever sent to. */
  apiUrl?: string;
  timeoutMs?: number;
  /** undici's `request` unless a test or a bench passes another dispatcher's. */
  request?: (url: string, options: { method: Dispatcher.HttpMethod; headers: Record<string, string>; body?: string; signal: AbortSignal }) => Promise<Dispatcher.ResponseData>;
}

export type BuildState = 'INPROGRESS' | 'SUCCESSFUL' | 'FAILED' | 'STOPPED';

/** An inline anchor (facts §3): `to` a new-side line; `startTo` the first line of a span ending at `to`. */
export interface InlineAnchor {
  path: string;
  to: number;
  startTo?: number;
}

export type RepositoryPermission = 'admin' | 'write' | 'read';

interface Answer {
  status: number;
  headers: Dispatcher.ResponseData['headers'];
  body: Dispatcher.ResponseData['body'];
  url: string;
}

/** A list never spans more pages than this; a server that says otherwise is cut off. */
const MAX_PAGES = 100;
/** Bitbucket's largest page for most lists (diffstat allows 500). */
const PAGELEN = 100;
/** A redirect chain longer than this is a loop. */
const MAX_REDIRECTS = 3;
/** A diff of a large pull request is one document: it may take longer than a JSON answer. */
const DIFF_TIMEOUT_MS = 60_000;

const segment = encodeURIComponent;
/** A file path inside a URL: each part encoded, the slashes kept. */
const pathSegments = (path: string) => path.split('/').map(encodeURIComponent).join('/');

/**
 * The calls this service makes to Bitbucket Cloud REST 2.0 (decisions.md §16), with Bitbucket's
 * failures turned into typed errors: 401/403 break the connection, 429 asks the queue to retry later,
 * a refused inline anchor is `BitbucketRefusedPositionError`, a 555 diff `BitbucketDiffTooLargeError`,
 * anything else a `BitbucketApiError` with Bitbucket's message.
 */
export class BitbucketClient {
  /** `BITBUCKET_API_URL` without its trailing slash: the snapshot cache names its folder by this host. */
  readonly apiUrl: string;
  private readonly origin: string;
  private readonly timeoutMs: number;
  private readonly send: NonNullable<BitbucketClientOptions['request']>;

  constructor(options: BitbucketClientOptions = {}) {
    this.apiUrl = (options.apiUrl ?? BITBUCKET_API_URL).replace(/\/+$/, '');
    this.origin = new URL(this.apiUrl).origin;
    this.timeoutMs = options.timeoutMs ?? 15_000;
    this.send = options.request ?? ((url, requestOptions) => undiciRequest(url, requestOptions));
  }

  repository(target: BitbucketTarget) {
    return this.json(target.auth, 'GET', this.repo(target), bitbucketRepositorySchema);
  }

  /** The API token's own account; null for an access token, which `GET /user` refuses (facts §5). */
  async currentUser(auth: BitbucketAuth) {
    if (auth.kind === 'access-token') return null;
    return this.json(auth, 'GET', '/user', bitbucketAccountSchema);
  }

  /** Whether these credentials may read the repository's permissions (the connection's `commands`): 200 yes, 403 no (facts §5). */
  async canReadPermissions(target: BitbucketTarget): Promise<boolean> {
    try {
      await this.json(target.auth, 'GET', `${this.permissionsPath(target)}?pagelen=1`, pageSchema(bitbucketPermissionSchema));
      return true;
    } catch (error) {
      if (error instanceof BitbucketApiError && error.status === 403) return false;
      throw error;
    }
  }

  /** A user's effective permission on the repository (the highest, groups included); null when they hold none. Needs an admin's API token. */
  async permissionOf(target: BitbucketTarget, userUuid: string): Promise<RepositoryPermission | null> {
    const query = new URLSearchParams({ q: `user.uuid="${userUuid}"` });
    const { values } = await this.json(target.auth, 'GET', `${this.permissionsPath(target)}?${query.toString()}`, pageSchema(bitbucketPermissionSchema));
    const order: RepositoryPermission[] = ['admin', 'write', 'read'];
    return order.find((permission) => values.some((value) => value.permission === permission)) ?? null;
  }

  pullRequest(target: BitbucketTarget, id: number) {
    return this.json(target.auth, 'GET', `${this.repo(target)}/pullrequests/${id}`, bitbucketPullRequestSchema);
  }

  /** The pull request's diff: one git-style document, read after Bitbucket's redirect with the same credentials (facts §2). */
  async pullRequestDiff(target: BitbucketTarget, id: number): Promise<string> {
    const response = await this.request(target.auth, 'GET', `${this.repo(target)}/pullrequests/${id}/diff`, undefined, DIFF_TIMEOUT_MS);
    return response.body.text();
  }

  /** The files a pull request changes, every page (after the redirect to `/diffstat/{spec}`). */
  pullRequestDiffstat(target: BitbucketTarget, id: number): Promise<BitbucketDiffstat[]> {
    return this.paged(target.auth, `${this.repo(target)}/pullrequests/${id}/diffstat?pagelen=500`, bitbucketDiffstatSchema, `The diffstat of #${id}`);
  }

  /**
   * What a push changed: `/diff/{newHead}..{oldHead}?topic=false` (Bitbucket's order is the reverse
   * of `git diff`'s, and `topic=false` makes it the plain two-commit diff, facts §2). Null when
   * Bitbucket no longer has one of the commits (a force push took it away).
   */
  async commitsDiff(target: BitbucketTarget, newHead: string, oldHead: string): Promise<string | null> {
    const path = `${this.repo(target)}/diff/${segment(newHead)}..${segment(oldHead)}?topic=false`;
    const response = await this.unlessMissing(this.request(target.auth, 'GET', path, undefined, DIFF_TIMEOUT_MS));
    return response === null ? null : response.body.text();
  }

  /** The full 40-character hash of a commit Bitbucket names by 12 characters (facts §1, §2). */
  async fullHash(target: BitbucketTarget, hash: string): Promise<string> {
    if (/^[0-9a-f]{40}$/.test(hash)) return hash;
    return (await this.json(target.auth, 'GET', `${this.repo(target)}/commit/${segment(hash)}`, bitbucketCommitSchema)).hash;
  }

  /** A file's content at a commit (`/src/{commit}/{path}`); null when it does not exist there. */
  async fileAt(target: BitbucketTarget, commit: string, path: string): Promise<string | null> {
    const response = await this.unlessMissing(this.request(target.auth, 'GET', `${this.repo(target)}/src/${segment(commit)}/${pathSegments(path)}`));
    return response === null ? null : response.body.text();
  }

  /**
   * One page of a folder's entries at a commit (`/src/{commit}/{path}/`, facts §2): files with their
   * sizes, sub-folders to list in turn. `next` is the following page's whole URL, passed back as `page`.
   */
  async directory(target: BitbucketTarget, commit: string, path: string, page?: string): Promise<{ entries: BitbucketSourceEntry[]; next: string | undefined }> {
    const folder = path === '' ? '' : `${pathSegments(path.replace(/\/+$/, ''))}/`;
    const answer = await this.json(target.auth, 'GET', page ?? `${this.repo(target)}/src/${segment(commit)}/${folder}?pagelen=${PAGELEN}`, pageSchema(bitbucketSourceEntrySchema));
    return { entries: answer.values, next: answer.next };
  }

  /** Creates or overwrites (by `key`) the commit's build status (facts §4). */
  postBuildStatus(target: BitbucketTarget, hash: string, status: { key: string; state: BuildState; name: string; url: string; description?: string }) {
    return this.json(target.auth, 'POST', `${this.repo(target)}/commit/${segment(hash)}/statuses/build`, bitbucketBuildStatusSchema, {
      key: status.key,
      state: status.state,
      name: status.name,
      url: status.url,
      ...(status.description === undefined ? {} : { description: status.description }),
    });
  }

  /**
   * A comment on the pull request: general, inline on `anchor`, or a reply (`parentId`; a reply takes
   * its parent's anchor). A 4xx on an inline anchor is `BitbucketRefusedPositionError`.
   */
  async createComment(target: BitbucketTarget, prId: number, raw: string, options: { anchor?: InlineAnchor; parentId?: number } = {}): Promise<BitbucketComment> {
    const { anchor, parentId } = options;
    const body = {
      content: { raw },
      ...(anchor === undefined ? {} : { inline: { path: anchor.path, to: anchor.to, ...(anchor.startTo === undefined || anchor.startTo === anchor.to ? {} : { start_to: anchor.startTo }) } }),
      ...(parentId === undefined ? {} : { parent: { id: parentId } }),
    };
    try {
      return await this.json(target.auth, 'POST', `${this.repo(target)}/pullrequests/${prId}/comments`, bitbucketCommentSchema, body);
    } catch (error) {
      const refused = anchor !== undefined && error instanceof BitbucketApiError && !(error instanceof BitbucketConnectionBrokenError) && error.status >= 400 && error.status < 500;
      if (refused) throw new BitbucketRefusedPositionError(error.status, error.message);
      throw error;
    }
  }

  updateComment(target: BitbucketTarget, prId: number, commentId: number, raw: string) {
    return this.json(target.auth, 'PUT', `${this.repo(target)}/pullrequests/${prId}/comments/${commentId}`, bitbucketCommentSchema, { content: { raw } });
  }

  /** Every comment of the pull request, oldest first, inline ones and replies included (deleted ones left out). */
  async listComments(target: BitbucketTarget, prId: number): Promise<BitbucketComment[]> {
    const comments = await this.paged(target.auth, `${this.repo(target)}/pullrequests/${prId}/comments?pagelen=${PAGELEN}`, bitbucketCommentSchema, `The comments of #${prId}`);
    return comments.filter((comment) => comment.deleted !== true);
  }

  /**
   * Resolves an inline comment's thread. `refused` when Bitbucket will not (403: not a top-level
   * comment on the diff; 409: resolved meanwhile, facts §3): decisions.md §16 answers both with a
   * reply naming the new head, so the thread says why the finding went whoever resolved it.
   */
  async resolveComment(target: BitbucketTarget, prId: number, commentId: number): Promise<'resolved' | 'refused'> {
    try {
      await (await this.request(target.auth, 'POST', `${this.repo(target)}/pullrequests/${prId}/comments/${commentId}/resolve`)).body.dump();
      return 'resolved';
    } catch (error) {
      if (error instanceof BitbucketApiError && (error.status === 403 || error.status === 409)) return 'refused';
      throw error;
    }
  }

  /** The repository webhook the service owns (decisions.md §16); its secret is never returned. */
  createHook(target: BitbucketTarget, hook: { url: string; secret: string; events: readonly string[]; description: string }) {
    return this.json(target.auth, 'POST', `${this.repo(target)}/hooks`, bitbucketHookSchema, { description: hook.description, url: hook.url, active: true, secret: hook.secret, events: hook.events });
  }

  /** Deletes a webhook; one already gone is no error. */
  async deleteHook(target: BitbucketTarget, uuid: string): Promise<void> {
    const response = await this.unlessMissing(this.request(target.auth, 'DELETE', `${this.repo(target)}/hooks/${segment(uuid)}`));
    await response?.body.dump();
  }

  private repo(target: BitbucketTarget): string {
    return `/repositories/${segment(target.workspace)}/${segment(target.repoSlug)}`;
  }

  private permissionsPath(target: BitbucketTarget): string {
    return `/workspaces/${segment(target.workspace)}/permissions/repositories/${segment(target.repoSlug)}`;
  }

  /** A list read page by page (`next` until there is none); one longer than `MAX_PAGES` is an error. */
  private async paged<Schema extends z.ZodType>(auth: BitbucketAuth, path: string, schema: Schema, what: string): Promise<Array<z.output<Schema>>> {
    const items: Array<z.output<Schema>> = [];
    const page = pageSchema(schema);
    let next: string | undefined = path;
    for (let pages = 0; pages < MAX_PAGES && next !== undefined; pages++) {
      const answer: z.output<typeof page> = await this.json(auth, 'GET', next, page);
      items.push(...(answer.values as Array<z.output<Schema>>));
      next = answer.next;
    }
    if (next !== undefined) throw new BitbucketApiError(502, `${what} spans more than ${MAX_PAGES} pages`);
    return items;
  }

  private async json<Schema extends z.ZodType>(auth: BitbucketAuth, method: Dispatcher.HttpMethod, path: string, schema: Schema, body?: object): Promise<z.output<Schema>> {
    const response = await this.request(auth, method, path, body);
    const parsed = schema.safeParse(await response.body.json().catch(() => undefined));
    if (!parsed.success) throw new BitbucketApiError(502, `Bitbucket answered ${new URL(response.url).pathname} with an unexpected body`);
    return parsed.data;
  }

  /** The result, or null when Bitbucket answered 404 (what does not exist is no error). */
  private async unlessMissing<T>(call: Promise<T>): Promise<T | null> {
    try {
      return await call;
    } catch (error) {
      if (error instanceof BitbucketApiError && !(error instanceof BitbucketConnectionBrokenError) && error.status === 404) return null;
      throw error;
    }
  }

  /**
   * One call, `path` under the API or a whole URL (a page's `next`, a redirect's `Location`) on the
   * API's own origin: the credentials are never sent anywhere else. A GET follows Bitbucket's
   * redirects (the diff's, facts §2) with the same credentials.
   */
  private async request(auth: BitbucketAuth, method: Dispatcher.HttpMethod, path: string, body?: object, timeoutMs = this.timeoutMs): Promise<Answer> {
    let url = this.resolve(path);
    for (let hops = 0; ; hops++) {
      const response = await this.once(auth, method, url, body, timeoutMs);
      if (response.status >= 200 && response.status < 300) return response;
      if (response.status >= 300 && response.status < 400) {
        await response.body.dump();
        const location = header(response, 'location');
        if (method !== 'GET' || location === undefined || hops >= MAX_REDIRECTS) throw new BitbucketUnreachableError(`Bitbucket answered ${response.status} for ${new URL(url).pathname} without a redirect to follow`);
        url = this.resolve(new URL(location, url).toString());
        continue;
      }
      const reason = bitbucketReason(await response.body.json().catch(() => undefined), response.status);
      if (response.status === 429) throw new BitbucketRateLimitedError(`Bitbucket rate limit: ${reason}`, bitbucketWaitMs(header(response, 'retry-after')));
      if (response.status === 401 || response.status === 403) throw new BitbucketConnectionBrokenError(response.status, reason);
      if (response.status === 555) throw new BitbucketDiffTooLargeError(555, `The diff is too large for Bitbucket to compute (555): ${reason}`);
      throw new BitbucketApiError(response.status, reason);
    }
  }

  /** A path under the API, or a whole URL that must be on the API's origin. */
  private resolve(pathOrUrl: string): string {
    if (pathOrUrl.startsWith('/')) return `${this.apiUrl}${pathOrUrl}`;
    const url = new URL(pathOrUrl);
    if (url.origin !== this.origin) throw new BitbucketUnreachableError(`Bitbucket pointed to ${url.origin}, outside ${this.origin}: not followed`);
    return url.toString();
  }

  private async once(auth: BitbucketAuth, method: Dispatcher.HttpMethod, url: string, body: object | undefined, timeoutMs: number): Promise<Answer> {
    const headers: Record<string, string> = { accept: 'application/json', authorization: authorization(auth), 'user-agent': 'pr-review-service' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    try {
      const answer = await this.send(url, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }), signal: AbortSignal.timeout(timeoutMs) });
      return { status: answer.statusCode, headers: answer.headers, body: answer.body, url };
    } catch (error) {
      throw new BitbucketUnreachableError(`Bitbucket at ${this.origin} could not be reached (${errorCode(error)})`);
    }
  }
}

/** The `Authorization` header of a connection's credentials (facts §5). */
export function authorization(auth: BitbucketAuth): string {
  if (auth.kind === 'access-token') return `Bearer ${auth.token}`;
  return `Basic ${Buffer.from(`${auth.email}:${auth.token}`).toString('base64')}`;
}

/** A header's value (the first, when it came more than once). */
const header = (response: Answer, name: string): string | undefined => {
  const value = response.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/** What a failed connection says about itself: the system's code (`ECONNREFUSED`), else the error's name (`TimeoutError`). */
function errorCode(error: unknown): string {
  const { code, cause, name } = error as { code?: unknown; cause?: { code?: unknown }; name?: string };
  if (typeof code === 'string') return code;
  if (typeof cause?.code === 'string') return cause.code;
  return name ?? 'unknown error';
}
