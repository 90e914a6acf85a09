import { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import type { z } from 'zod';
import type { PolicyRequestOptions } from '../../lib/endpoint-policy.js';
import { AppError } from '../../lib/app-error.js';
import { assembleUnifiedDiff } from './gitlab-diff.js';
import { GitLabApiError, GitLabConnectionBrokenError, GitLabRateLimitedError, GitLabUnreachableError, gitlabReason, rateLimitWaitMs } from './gitlab-errors.js';
import {
  gitlabCompareSchema,
  gitlabDiffEntrySchema,
  gitlabDiscussionSchema,
  gitlabHookSchema,
  gitlabMemberSchema,
  gitlabMergeRequestSchema,
  gitlabNoteSchema,
  gitlabProjectSchema,
  gitlabStatusSchema,
  gitlabTreeEntrySchema,
  gitlabUserSchema,
  type GitLabDiffEntry,
  type GitLabDiffRefs,
} from './gitlab-schemas.js';

/** Where and as whom: a connection's GitLab instance and its access token. */
export interface GitLabTarget {
  /** The instance's web address (`https://gitlab.com`, `https://git.example.com/gitlab`); the API is under `/api/v4`. */
  baseUrl: string;
  token: string;
}

export interface GitLabClientOptions {
  /** What every call goes through: the BYOK address policy's `request`, since base URLs are user-supplied. */
  request: (url: string, options: PolicyRequestOptions) => Promise<Dispatcher.ResponseData>;
  timeoutMs?: number;
}

/** One answer of GitLab's, with the address it was asked at (named in errors). */
interface Answer {
  status: number;
  headers: Dispatcher.ResponseData['headers'];
  body: Dispatcher.ResponseData['body'];
  url: string;
}

/** What a commit status, a diff discussion and its position need (GitLab's names). */
export interface TextPosition {
  diffRefs: GitLabDiffRefs;
  oldPath: string;
  newPath: string;
  newLine?: number;
  oldLine?: number;
  lineRange?: { start: LinePoint; end: LinePoint };
}

export interface LinePoint {
  lineCode: string;
  type: 'new' | 'old' | null;
}

export type CommitState = 'pending' | 'running' | 'success' | 'failed' | 'canceled';

const PER_PAGE = 100;
/** An archive streams for longer than one JSON answer (the same allowance as GitHub's tarball). */
const ARCHIVE_TIMEOUT_MS = 120_000;
/** A list never spans more pages than this (GitLab caps diffs far lower); a server that says otherwise is cut off. */
const MAX_PAGES = 100;

/** A project id or a `group/sub/project` path, as one URL segment. */
const projectSegment = (project: number | string) => encodeURIComponent(String(project));

/**
 * The calls this service makes to GitLab REST v4 (gitlab.com or self-managed), with GitLab's
 * failures turned into typed errors: 401/403 break the connection, 429 asks the queue to retry
 * later, anything else is a `GitLabApiError` with GitLab's reason.
 */
export class GitLabClient {
  private readonly timeoutMs: number;

  constructor(private readonly options: GitLabClientOptions) {
    this.timeoutMs = options.timeoutMs ?? 15_000;
  }

  project(target: GitLabTarget, project: number | string) {
    return this.json(target, 'GET', `/projects/${projectSegment(project)}`, gitlabProjectSchema);
  }

  /** The token's own user (its notes are the service's own, never commands). */
  currentUser(target: GitLabTarget) {
    return this.json(target, 'GET', '/user', gitlabUserSchema);
  }

  user(target: GitLabTarget, userId: number) {
    return this.json(target, 'GET', `/users/${userId}`, gitlabUserSchema);
  }

  /** A member's access level on the project, inherited ones included; null for a non-member. */
  async accessLevel(target: GitLabTarget, projectId: number, userId: number): Promise<number | null> {
    const member = await this.unlessMissing(this.json(target, 'GET', `/projects/${projectId}/members/all/${userId}`, gitlabMemberSchema));
    return member?.access_level ?? null;
  }

  /** Creates the project webhook this service listens on: merge request and note events, never pushes. */
  createHook(target: GitLabTarget, projectId: number, hook: { url: string; secret: string }) {
    return this.json(target, 'POST', `/projects/${projectId}/hooks`, gitlabHookSchema, {
      url: hook.url,
      token: hook.secret,
      merge_requests_events: true,
      note_events: true,
      push_events: false,
      enable_ssl_verification: true,
    });
  }

  /** Removes a webhook; one already gone is no error. */
  async deleteHook(target: GitLabTarget, projectId: number, hookId: number): Promise<void> {
    await (await this.unlessMissing(this.request(target, 'DELETE', `/projects/${projectId}/hooks/${hookId}`)))?.body.dump();
  }

  mergeRequest(target: GitLabTarget, projectId: number, iid: number) {
    return this.json(target, 'GET', `/projects/${projectId}/merge_requests/${iid}`, gitlabMergeRequestSchema);
  }

  /** Every file of a merge request's latest diff, page by page. */
  mergeRequestDiffEntries(target: GitLabTarget, projectId: number, iid: number): Promise<GitLabDiffEntry[]> {
    return this.paged(target, `/projects/${projectId}/merge_requests/${iid}/diffs`, gitlabDiffEntrySchema, `GitLab's diff of !${iid}`);
  }

  /** A merge request's diff as `git diff` text with git's headers. */
  async mergeRequestDiff(target: GitLabTarget, projectId: number, iid: number): Promise<string> {
    return assembleUnifiedDiff(await this.mergeRequestDiffEntries(target, projectId, iid));
  }

  /** What a push changed, as `git diff` text; null when GitLab cannot compare them (a ref force-pushed away). */
  async compareDiff(target: GitLabTarget, projectId: number, from: string, to: string): Promise<string | null> {
    const query = new URLSearchParams({ from, to });
    const compare = await this.unlessMissing(this.json(target, 'GET', `/projects/${projectId}/repository/compare?${query.toString()}`, gitlabCompareSchema));
    return compare === null ? null : assembleUnifiedDiff(compare.diffs);
  }

  /** A file's content at a ref, or null when it does not exist there. */
  async fileContent(target: GitLabTarget, projectId: number, path: string, ref: string): Promise<string | null> {
    const response = await this.unlessMissing(this.request(target, 'GET', `/projects/${projectId}/repository/files/${encodeURIComponent(path)}/raw?ref=${encodeURIComponent(ref)}`));
    return response === null ? null : response.body.text();
  }

  /** The repository at a commit as a gzipped tarball (entries under one top folder), streamed; null when GitLab has no such commit. */
  async archive(target: GitLabTarget, projectId: number, sha: string): Promise<ReadableStream<Uint8Array> | null> {
    const response = await this.unlessMissing(this.request(target, 'GET', `/projects/${projectId}/repository/archive.tar.gz?sha=${encodeURIComponent(sha)}`, undefined, ARCHIVE_TIMEOUT_MS));
    if (response === null) return null;
    return Readable.toWeb(response.body) as ReadableStream<Uint8Array>;
  }

  /**
   * Every file (blob) path of a commit, paged; `truncated` when the listing spans more pages than
   * this client reads. GitLab's tree API gives no sizes.
   */
  async treePaths(target: GitLabTarget, projectId: number, sha: string): Promise<{ truncated: boolean; paths: string[] }> {
    const query = new URLSearchParams({ ref: sha, recursive: 'true' });
    const { items, truncated } = await this.pages(target, `/projects/${projectId}/repository/tree?${query.toString()}`, gitlabTreeEntrySchema);
    return { truncated, paths: items.filter((entry) => entry.type === 'blob').map((entry) => entry.path) };
  }

  postStatus(target: GitLabTarget, projectId: number, sha: string, status: { state: CommitState; name: string; targetUrl?: string; description?: string }) {
    return this.json(target, 'POST', `/projects/${projectId}/statuses/${encodeURIComponent(sha)}`, gitlabStatusSchema, {
      state: status.state,
      name: status.name,
      ...(status.targetUrl === undefined ? {} : { target_url: status.targetUrl }),
      ...(status.description === undefined ? {} : { description: status.description }),
    });
  }

  /** A discussion on the merge request, on a diff line when `position` is given (GitLab's 400 when it cannot place it). */
  createDiscussion(target: GitLabTarget, projectId: number, iid: number, body: string, position?: TextPosition) {
    return this.json(target, 'POST', `/projects/${projectId}/merge_requests/${iid}/discussions`, gitlabDiscussionSchema, {
      body,
      ...(position === undefined ? {} : { position: positionBody(position) }),
    });
  }

  /** Every discussion of a merge request (its standalone notes among them, as `individual_note` discussions). */
  listDiscussions(target: GitLabTarget, projectId: number, iid: number) {
    return this.paged(target, `/projects/${projectId}/merge_requests/${iid}/discussions`, gitlabDiscussionSchema, `The discussions of !${iid}`);
  }

  resolveDiscussion(target: GitLabTarget, projectId: number, iid: number, discussionId: string) {
    return this.json(target, 'PUT', `/projects/${projectId}/merge_requests/${iid}/discussions/${encodeURIComponent(discussionId)}?resolved=true`, gitlabDiscussionSchema);
  }

  replyToDiscussion(target: GitLabTarget, projectId: number, iid: number, discussionId: string, body: string) {
    return this.json(target, 'POST', `/projects/${projectId}/merge_requests/${iid}/discussions/${encodeURIComponent(discussionId)}/notes`, gitlabNoteSchema, { body });
  }

  createNote(target: GitLabTarget, projectId: number, iid: number, body: string) {
    return this.json(target, 'POST', `/projects/${projectId}/merge_requests/${iid}/notes`, gitlabNoteSchema, { body });
  }

  editNote(target: GitLabTarget, projectId: number, iid: number, noteId: number, body: string) {
    return this.json(target, 'PUT', `/projects/${projectId}/merge_requests/${iid}/notes/${noteId}`, gitlabNoteSchema, { body });
  }

  /** Awards an emoji on a note; one already awarded by the token's user is no error. */
  async awardNoteEmoji(target: GitLabTarget, projectId: number, iid: number, noteId: number, name: string): Promise<void> {
    try {
      await (await this.request(target, 'POST', `/projects/${projectId}/merge_requests/${iid}/notes/${noteId}/award_emoji`, { name })).body.dump();
    } catch (error) {
      // GitLab's answer to the same award twice is a 404 "has already been taken".
      if (error instanceof GitLabApiError && error.status === 404 && /already been taken/i.test(error.message)) return;
      throw error;
    }
  }

  /** A list read page by page; one longer than `MAX_PAGES` is an error. */
  private async paged<Schema extends z.ZodType>(target: GitLabTarget, path: string, schema: Schema, what: string): Promise<Array<z.output<Schema>>> {
    const { items, truncated } = await this.pages(target, path, schema);
    if (truncated) throw new GitLabApiError(502, `${what} spans more than ${MAX_PAGES} pages`);
    return items;
  }

  /** A list read page by page (`X-Next-Page` until it is empty), at most `MAX_PAGES` of them. */
  private async pages<Schema extends z.ZodType>(target: GitLabTarget, path: string, schema: Schema): Promise<{ items: Array<z.output<Schema>>; truncated: boolean }> {
    const items: Array<z.output<Schema>> = [];
    const separator = path.includes('?') ? '&' : '?';
    let page = 1;
    for (let pages = 0; pages < MAX_PAGES; pages++) {
      const response = await this.request(target, 'GET', `${path}${separator}page=${page}&per_page=${PER_PAGE}`);
      items.push(...(await this.parse(response, arrayOf(schema))));
      const next = Number(header(response, 'x-next-page'));
      // A next page that does not move forward would loop forever.
      if (!Number.isInteger(next) || next <= page) return { items, truncated: false };
      page = next;
    }
    return { items, truncated: true };
  }

  private async json<Schema extends z.ZodType>(target: GitLabTarget, method: Dispatcher.HttpMethod, path: string, schema: Schema, body?: object): Promise<z.output<Schema>> {
    return this.parse(await this.request(target, method, path, body), schema);
  }

  private async parse<Schema extends z.ZodType>(response: Answer, schema: Schema): Promise<z.output<Schema>> {
    const parsed = schema.safeParse(await response.body.json().catch(() => undefined));
    if (!parsed.success) throw new GitLabApiError(502, `GitLab answered ${new URL(response.url).pathname} with an unexpected body`);
    return parsed.data;
  }

  /** The result, or null when GitLab answered 404 (what does not exist is no error). */
  private async unlessMissing<T>(call: Promise<T>): Promise<T | null> {
    try {
      return await call;
    } catch (error) {
      if (error instanceof GitLabApiError && error.status === 404) return null;
      throw error;
    }
  }

  private async request(target: GitLabTarget, method: Dispatcher.HttpMethod, path: string, body?: object, timeoutMs = this.timeoutMs): Promise<Answer> {
    const url = `${target.baseUrl.replace(/\/+$/, '')}/api/v4${path}`;
    const headers: Record<string, string> = { accept: 'application/json', 'private-token': target.token, 'user-agent': 'pr-review-service' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response: Answer;
    try {
      const answer = await this.options.request(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(timeoutMs) });
      response = { status: answer.statusCode, headers: answer.headers, body: answer.body, url };
    } catch (error) {
      // The policy's own refusal of a base URL is an AppError (a 400 naming the address): it passes through.
      if (error instanceof AppError) throw error;
      throw new GitLabUnreachableError(`GitLab at ${target.baseUrl} could not be reached (${errorCode(error)})`);
    }
    if (response.status >= 200 && response.status < 300) return response;
    // A redirect is not followed: it would carry the token to wherever it points.
    if (response.status >= 300 && response.status < 400) {
      await response.body.dump();
      throw new GitLabUnreachableError(`GitLab at ${target.baseUrl} could not be reached (it answered ${response.status}, a redirect)`);
    }
    const reason = gitlabReason(await response.body.json().catch(() => undefined), response.status);
    if (response.status === 429) throw new GitLabRateLimitedError(`GitLab rate limit: ${reason}`, rateLimitWaitMs(webHeaders(response.headers)));
    if (response.status === 401 || response.status === 403) throw new GitLabConnectionBrokenError(response.status, reason);
    throw new GitLabApiError(response.status, reason);
  }
}

/** Each list schema built once: constructing a zod schema (and compiling it on its first parse) cost more than parsing a small page. */
const arrays = new WeakMap<z.ZodType, z.ZodArray<z.ZodType>>();
function arrayOf<Schema extends z.ZodType>(schema: Schema): z.ZodArray<Schema> {
  let array = arrays.get(schema);
  if (array === undefined) arrays.set(schema, (array = schema.array()));
  return array as z.ZodArray<Schema>;
}

/** A header's value (the first, when it came more than once). */
const header = (response: Answer, name: string): string | undefined => {
  const value = response.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/** undici's raw headers as the WHATWG `Headers` that `rateLimitWaitMs` reads. */
function webHeaders(raw: Answer['headers']): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, one);
  }
  return headers;
}

/** What a failed connection says about itself: the system's code (`ECONNREFUSED`, the policy's `EBLOCKEDADDRESS`), else the error's name (`TimeoutError`). */
function errorCode(error: unknown): string {
  const { code, cause, name } = error as { code?: unknown; cause?: { code?: unknown }; name?: string };
  if (typeof code === 'string') return code;
  if (typeof cause?.code === 'string') return cause.code;
  return name ?? 'unknown error';
}

/** GitLab's `position` for a text diff note, in its snake_case names. */
function positionBody(position: TextPosition) {
  const point = (value: LinePoint) => ({ line_code: value.lineCode, type: value.type });
  return {
    position_type: 'text',
    base_sha: position.diffRefs.base_sha,
    start_sha: position.diffRefs.start_sha,
    head_sha: position.diffRefs.head_sha,
    old_path: position.oldPath,
    new_path: position.newPath,
    ...(position.newLine === undefined ? {} : { new_line: position.newLine }),
    ...(position.oldLine === undefined ? {} : { old_line: position.oldLine }),
    ...(position.lineRange === undefined ? {} : { line_range: { start: point(position.lineRange.start), end: point(position.lineRange.end) } }),
  };
}
