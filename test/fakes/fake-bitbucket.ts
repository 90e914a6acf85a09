import { createHmac, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { closeServer, listenOnLoopback } from '../helpers/net.js';

/**
 * A local Bitbucket Cloud REST 2.0 (decisions.md §16, bitbucket-facts.md): the calls the service
 * makes for pull requests, in Bitbucket's shapes and with its refusals, so the real client code runs
 * in tests. The npm client `bitbucket` (generated from Bitbucket's own OpenAPI document) checks it in
 * test/contract/fake-bitbucket.contract.test.ts.
 *
 * Modelling choices where Bitbucket documents nothing (facts "none"): an inline anchor off the diff
 * is a 400 in Bitbucket's error shape; a `start_to` must itself be a new-side line of the diff; an
 * access token writes as an `app_user` named after the token.
 */

export type Permission = 'read' | 'write' | 'admin';

export interface FakeBitbucketUser {
  /** With braces, as Bitbucket writes account UUIDs: `{1d29d34f-...}`. */
  uuid: string;
  account_id: string;
  display_name: string;
  nickname: string;
  type: 'user' | 'app_user';
}

/**
 * Access-token scopes (their vocabulary: `repository`, `pullrequest`, `webhook`...) or, for an
 * Atlassian API token, the `read:repository:bitbucket`-style ones. Routes name what they need in
 * both vocabularies.
 */
interface Grant {
  kind: 'access-token' | 'api-token';
  user: FakeBitbucketUser;
  scopes: string[];
  /** An access token is tied to repositories (`workspace/slug`); an API token reaches what its user may. */
  repositories?: Set<string>;
}

export interface FakeComment {
  id: number;
  raw: string;
  user: FakeBitbucketUser;
  created_on: string;
  updated_on: string;
  parentId: number | null;
  inline: { path: string; from: number | null; to: number | null; start_from?: number | null; start_to?: number | null } | null;
  deleted: boolean;
  resolution: { user: FakeBitbucketUser; created_on: string } | null;
  /** The fake's own bookkeeping (how many times it was edited); not in Bitbucket's answer. */
  edits: number;
}

export interface FakePullRequest {
  id: number;
  title: string;
  description: string;
  state: 'OPEN' | 'MERGED' | 'DECLINED' | 'SUPERSEDED';
  draft: boolean;
  author: FakeBitbucketUser;
  source: { branch: string; commit: string };
  destination: { branch: string; commit: string };
  /** The pull request's raw git diff (what `/diff` answers after its redirect). */
  diff: string;
  comments: FakeComment[];
}

export interface FakeHook {
  uuid: string;
  url: string;
  description: string;
  active: boolean;
  events: string[];
  /** Kept to sign deliveries and to check what the service registered; Bitbucket never returns it. */
  secret: string | null;
  created_at: string;
}

export interface FakeBuildStatus {
  key: string;
  state: 'INPROGRESS' | 'SUCCESSFUL' | 'FAILED' | 'STOPPED';
  name: string;
  url: string;
  description: string;
  refname: string | null;
  commit: string;
  created_on: string;
  updated_on: string;
  /** How many posts wrote it (a repeated key overwrites); the fake's own bookkeeping. */
  writes: number;
}

export interface FakeRepository {
  uuid: string;
  workspace: string;
  workspaceUuid: string;
  slug: string;
  permissions: Map<string, Permission>;
  pullRequests: Map<number, FakePullRequest>;
  hooks: FakeHook[];
  statuses: FakeBuildStatus[];
  /** Full 40-character hashes of the commits the repository knows. */
  commits: Set<string>;
  /** `<full hash>:<path>` -> content. */
  files: Map<string, string>;
  /** `<spec>?topic=<true|false>` -> raw diff, for `/diff/{spec}`. */
  diffs: Map<string, string>;
}

export interface RecordedBitbucketRequest {
  method: string;
  /** The path under the API's base (`/repositories/ws/repo`), without the query. */
  path: string;
  query: Record<string, string>;
  headers: IncomingMessage['headers'];
  body: unknown;
  at: number;
  endedAt: number;
}

/** A delivery's signing secret (none: unsigned), its hook, and its request (the same on a retry, with a higher attempt). */
export interface DeliveryOptions {
  secret?: string | null;
  hookUuid?: string;
  requestUuid?: string;
  attempt?: number;
}

type Send = (status: number, payload: unknown, headers?: Record<string, string>) => void;

interface Call {
  method: string;
  path: string;
  query: URLSearchParams;
  body: Record<string, unknown>;
  grant: Grant;
}

/** What a route needs, in each token kind's vocabulary. */
interface Need {
  accessToken: string;
  apiToken: string;
}

const NEEDS = {
  readRepository: { accessToken: 'repository', apiToken: 'read:repository:bitbucket' },
  readPullRequest: { accessToken: 'pullrequest', apiToken: 'read:pullrequest:bitbucket' },
  writePullRequest: { accessToken: 'pullrequest', apiToken: 'write:pullrequest:bitbucket' },
  writeStatus: { accessToken: 'repository', apiToken: 'write:repository:bitbucket' },
  readWebhook: { accessToken: 'webhook', apiToken: 'read:webhook:bitbucket' },
  writeWebhook: { accessToken: 'webhook', apiToken: 'write:webhook:bitbucket' },
  deleteWebhook: { accessToken: 'webhook', apiToken: 'delete:webhook:bitbucket' },
  readUser: { accessToken: 'account', apiToken: 'read:user:bitbucket' },
} satisfies Record<string, Need>;

/** `pullrequest` implies `repository` for access tokens (facts §5). */
const IMPLIED: Record<string, string[]> = { pullrequest: ['repository'], 'pullrequest:write': ['pullrequest', 'repository'], 'repository:write': ['repository'], 'repository:admin': ['repository'] };

export const ALL_ACCESS_TOKEN_SCOPES = ['repository', 'repository:write', 'pullrequest', 'webhook'];
export const ALL_API_TOKEN_SCOPES = Object.values(NEEDS).map((need) => need.apiToken);

const now = () => new Date().toISOString();
let nextId = 1_000;
const newId = () => nextId++;
const braces = (uuid: string) => `{${uuid}}`;

/** Bitbucket's error body (facts §5). */
export const errorBody = (message: string, extra: Record<string, unknown> = {}) => ({ type: 'error', error: { message, ...extra } });

export const MESSAGES = {
  unauthorized: 'Token is invalid, expired, or not supported for this endpoint.',
  scopes: 'Your credentials lack one or more required privilege scopes.',
  notAccessible: 'This API is not accessible by this authentication mechanism',
  rateLimited: 'Rate limit for this resource has been exceeded',
  repositoryNotFound: 'Repository not found',
} as const;

/** A user of the fake (an Atlassian account). */
export function bitbucketUser(name: string, extra: Partial<FakeBitbucketUser> = {}): FakeBitbucketUser {
  return { uuid: braces(randomUUID()), account_id: `5b${Math.random().toString(16).slice(2, 24).padEnd(22, '0')}`, display_name: name, nickname: name.toLowerCase().replace(/\s+/g, '-'), type: 'user', ...extra };
}

export interface DiffFile {
  oldPath: string;
  status: 'added' | 'removed' | 'modified' | 'renamed';
  added: number;
  removed: number;
  newLines: Set<number>;
  oldLines: Set<number>;
}

/** The lines of a raw git diff, per file (by new path): the new side's lines (added or context) and the old side's (removed or context). */
export function diffLines(diff: string): Map<string, DiffFile> {
  const files = new Map<string, DiffFile>();
  let current: DiffFile | undefined;
  let oldLine = 0;
  let newLine = 0;
  let inHunk = false;
  for (const text of diff.split('\n')) {
    const header = /^diff --git a\/(.+) b\/(.+)$/.exec(text);
    if (header) {
      current = { oldPath: header[1]!, status: header[1] === header[2] ? 'modified' : 'renamed', added: 0, removed: 0, newLines: new Set(), oldLines: new Set() };
      files.set(header[2]!, current);
      inHunk = false;
      continue;
    }
    if (current === undefined) continue;
    if (!inHunk) {
      if (text.startsWith('new file mode')) current.status = 'added';
      if (text.startsWith('deleted file mode')) current.status = 'removed';
    }
    const hunk = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(text);
    if (hunk) {
      oldLine = Number(hunk[1]);
      newLine = Number(hunk[2]);
      inHunk = true;
      continue;
    }
    if (!inHunk) continue;
    if (text.startsWith('+')) {
      current.newLines.add(newLine++);
      current.added++;
    } else if (text.startsWith('-')) {
      current.oldLines.add(oldLine++);
      current.removed++;
    } else if (text.startsWith(' ')) {
      current.newLines.add(newLine++);
      current.oldLines.add(oldLine++);
    }
  }
  return files;
}

async function readBody(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  if (raw.length === 0) return {};
  return JSON.parse(raw.toString()) as Record<string, unknown>;
}

const positiveInteger = (value: unknown) => (typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined);

/**
 * The fake server. Paths are under `basePath` (default `/2.0`, as `https://api.bitbucket.org/2.0`);
 * `apiUrl` is what `BITBUCKET_API_URL` should be set to.
 */
export class FakeBitbucket {
  readonly requests: RecordedBitbucketRequest[] = [];
  private readonly grants = new Map<string, Grant>();
  private readonly repositories = new Map<string, FakeRepository>();
  /** The next calls whose `METHOD path` matches answer this fault (a 429, a 555 for a too-large diff, a 5xx). */
  readonly faults: Array<{ pattern: RegExp; when: (body: Record<string, unknown>) => boolean; status: number; body: unknown; headers: Record<string, string>; remaining: number }> = [];
  private server: Server | undefined;
  /** The server's origin (`http://127.0.0.1:port`). */
  url = '';

  constructor(private readonly basePath = '/2.0') {}

  get apiUrl(): string {
    return `${this.url}${this.basePath}`;
  }

  async start(): Promise<this> {
    this.server = createServer((request, response) => void this.handle(request, response));
    this.url = await listenOnLoopback(this.server);
    return this;
  }

  stop(): Promise<void> {
    return closeServer(this.server);
  }

  // --- Setting the world up ------------------------------------------------------------------

  addRepository(fullName: string, uuid = braces(randomUUID())): FakeRepository {
    const [workspace, slug] = fullName.split('/') as [string, string];
    const repository: FakeRepository = { uuid, workspace, workspaceUuid: braces(randomUUID()), slug, permissions: new Map(), pullRequests: new Map(), hooks: [], statuses: [], commits: new Set(), files: new Map(), diffs: new Map() };
    this.repositories.set(fullName, repository);
    return repository;
  }

  repository(fullName: string): FakeRepository {
    const repository = this.repositories.get(fullName);
    if (repository === undefined) throw new Error(`no fake repository ${fullName}`);
    return repository;
  }

  setPermission(fullName: string, user: FakeBitbucketUser, permission: Permission): void {
    this.repository(fullName).permissions.set(user.uuid, permission);
  }

  /**
   * A repository access token (Bearer). It writes as an `app_user` named after the token, and reaches
   * only its repository.
   */
  issueAccessToken(fullName: string, options: { scopes?: string[]; name?: string; token?: string } = {}): { token: string; user: FakeBitbucketUser } {
    const token = options.token ?? `ATCTT3xFfGN0${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
    const user = bitbucketUser(options.name ?? 'AI review token', { type: 'app_user' });
    this.grants.set(`Bearer ${token}`, { kind: 'access-token', user, scopes: options.scopes ?? ALL_ACCESS_TOKEN_SCOPES, repositories: new Set([fullName]) });
    return { token, user };
  }

  /** An Atlassian API token (Basic `email:token`) of `user`: it reaches the repositories `user` has a permission on. */
  issueApiToken(user: FakeBitbucketUser, email: string, options: { scopes?: string[]; token?: string } = {}): { email: string; token: string } {
    const token = options.token ?? `ATATT3xFfGF0${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
    this.grants.set(`Basic ${Buffer.from(`${email}:${token}`).toString('base64')}`, { kind: 'api-token', user, scopes: options.scopes ?? ALL_API_TOKEN_SCOPES });
    return { email, token };
  }

  revokeAccessToken(token: string): void {
    this.grants.delete(`Bearer ${token}`);
  }

  revokeApiToken(email: string, token: string): void {
    this.grants.delete(`Basic ${Buffer.from(`${email}:${token}`).toString('base64')}`);
  }

  /** Registers a commit (its full hash); payloads and pull requests name it by its first 12 characters. */
  addCommit(fullName: string, hash: string): string {
    if (!/^[0-9a-f]{40}$/.test(hash)) throw new Error(`not a full hash: ${hash}`);
    this.repository(fullName).commits.add(hash);
    return hash.slice(0, 12);
  }

  setFile(fullName: string, commit: string, path: string, content: string): void {
    const repository = this.repository(fullName);
    this.repository(fullName).files.set(`${this.fullHash(repository, commit) ?? commit}:${path}`, content);
  }

  /** The diff `/diff/{spec}` answers; `topic: false` is the two-commit (two-dot) diff the service asks for after a push. */
  setDiff(fullName: string, spec: string, diff: string, options: { topic?: boolean } = {}): void {
    const repository = this.repository(fullName);
    repository.diffs.set(`${this.commitsOf(repository, spec)}?topic=${options.topic ?? true}`, diff);
  }

  /**
   * Opens a pull request, or moves its head (a push): `source`/`destination` are full hashes, also
   * registered as commits; the pull request shows their first 12 characters, as Bitbucket does.
   */
  openPullRequest(fullName: string, id: number, options: { author: FakeBitbucketUser; source: string; destination: string; diff: string; title?: string; draft?: boolean; sourceBranch?: string; destinationBranch?: string }): FakePullRequest {
    const repository = this.repository(fullName);
    const source = this.addCommit(fullName, options.source);
    const destination = this.addCommit(fullName, options.destination);
    const existing = repository.pullRequests.get(id);
    const pullRequest: FakePullRequest = existing ?? {
      id,
      title: options.title ?? `Pull request ${id}`,
      description: '',
      state: 'OPEN',
      draft: options.draft ?? false,
      author: options.author,
      source: { branch: options.sourceBranch ?? `feature-${id}`, commit: source },
      destination: { branch: options.destinationBranch ?? 'main', commit: destination },
      diff: options.diff,
      comments: [],
    };
    pullRequest.source.commit = source;
    pullRequest.destination.commit = destination;
    pullRequest.diff = options.diff;
    if (options.draft !== undefined) pullRequest.draft = options.draft;
    if (options.title !== undefined) pullRequest.title = options.title;
    repository.pullRequests.set(id, pullRequest);
    return pullRequest;
  }

  pullRequest(fullName: string, id: number): FakePullRequest {
    const pullRequest = this.repository(fullName).pullRequests.get(id);
    if (pullRequest === undefined) throw new Error(`no fake pull request #${id}`);
    return pullRequest;
  }

  /** A person's comment (a command, a reply to one of the service's inline comments). */
  addComment(fullName: string, prId: number, raw: string, user: FakeBitbucketUser, options: { parentId?: number } = {}): FakeComment {
    const pullRequest = this.pullRequest(fullName, prId);
    const parent = options.parentId === undefined ? undefined : pullRequest.comments.find((comment) => comment.id === options.parentId);
    const comment = this.comment(raw, user, parent?.id ?? null, parent?.inline ?? null);
    pullRequest.comments.push(comment);
    return comment;
  }

  /**
   * The next `times` calls matching `pattern` (against `METHOD /repositories/...`, the path under the
   * base), and `when` their JSON body says so, answer `status`.
   */
  fail(pattern: RegExp, status: number, options: { times?: number; headers?: Record<string, string>; body?: unknown; when?: (body: Record<string, unknown>) => boolean } = {}): void {
    this.faults.push({ pattern, when: options.when ?? (() => true), status, headers: options.headers ?? {}, body: options.body ?? errorBody(`${status} fault`), remaining: options.times ?? 1 });
  }

  /** Bitbucket's 429 on the next `times` calls matching `pattern` (no `Retry-After`: Bitbucket documents none, facts §6). */
  rateLimit(pattern = /./, times = 1): void {
    this.fail(pattern, 429, { times, body: errorBody(MESSAGES.rateLimited) });
  }

  /** Bitbucket's 555 for a diff too large to compute in time (facts §2). */
  diffTooLarge(times = 1): void {
    this.fail(/^GET \/repositories\/[^/]+\/[^/]+\/diff\//, 555, { times, body: errorBody('Service Timeout: the diff took too long to generate') });
  }

  // --- Sending webhooks ----------------------------------------------------------------------

  /**
   * Posts one delivery as Bitbucket does (facts §1): `X-Event-Key`, `X-Request-UUID`,
   * `X-Attempt-Number`, `X-Hook-UUID`, `User-Agent: Bitbucket-Webhooks/2.0`, and with a secret
   * `X-Hub-Signature: sha256=<HMAC-SHA256 of the raw body>`. A retry is the same request again with a
   * higher attempt number: pass the first delivery's `requestUuid`.
   */
  static async deliver(url: string, eventKey: string, payload: unknown, options: DeliveryOptions & { rawBody?: string } = {}): Promise<{ status: number; body: string; requestUuid: string }> {
    const raw = options.rawBody ?? JSON.stringify(payload);
    const requestUuid = options.requestUuid ?? randomUUID();
    const response = await fetch(url, { method: 'POST', headers: FakeBitbucket.deliveryHeaders(eventKey, raw, { ...options, requestUuid }), body: raw });
    return { status: response.status, body: await response.text(), requestUuid };
  }

  /** The headers of one delivery of `raw` (see `deliver`), for a test that hands the request to the service in-process. */
  static deliveryHeaders(eventKey: string, raw: string, options: DeliveryOptions = {}): Record<string, string> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': 'Bitbucket-Webhooks/2.0',
      'x-event-key': eventKey,
      'x-request-uuid': options.requestUuid ?? randomUUID(),
      'x-attempt-number': String(options.attempt ?? 1),
      'x-hook-uuid': options.hookUuid ?? randomUUID(),
    };
    if (options.secret) headers['x-hub-signature'] = `sha256=${createHmac('sha256', options.secret).update(raw).digest('hex')}`;
    return headers;
  }

  /** Delivers `payload` to every active hook of the repository subscribed to `eventKey`, signed with the hook's secret. */
  async emit(fullName: string, eventKey: string, payload: unknown, options: { requestUuid?: string; attempt?: number } = {}): Promise<Array<{ status: number; body: string; requestUuid: string }>> {
    const hooks = this.repository(fullName).hooks.filter((hook) => hook.active && hook.events.includes(eventKey));
    return Promise.all(hooks.map((hook) => FakeBitbucket.deliver(hook.url, eventKey, payload, { secret: hook.secret, hookUuid: hook.uuid.replace(/[{}]/g, ''), ...options })));
  }

  /** A webhook payload for a pull-request event from the fake's state (`{actor, pullrequest, repository}`, `comment` for comment events). */
  eventPayload(fullName: string, prId: number, actor: FakeBitbucketUser, comment?: FakeComment): Record<string, unknown> {
    const repository = this.repository(fullName);
    const pullRequest = this.pullRequest(fullName, prId);
    return {
      actor: this.userJson(actor),
      repository: this.repositoryJson(repository),
      pullrequest: this.pullRequestJson(repository, pullRequest),
      ...(comment === undefined ? {} : { comment: this.commentJson(repository, pullRequest, comment) }),
    };
  }

  // --- Answering -------------------------------------------------------------------------------

  private async handle(request: IncomingMessage, response: ServerResponse) {
    const arrivedAt = performance.timeOrigin + performance.now();
    const url = new URL(request.url ?? '/', this.url);
    const recording: { request?: RecordedBitbucketRequest } = {};
    response.on('finish', () => {
      if (recording.request !== undefined) recording.request.endedAt = performance.timeOrigin + performance.now();
    });
    const send: Send = (status, payload, headers = {}) => {
      const text = typeof payload === 'string';
      // A 204 or a redirect has no body: not typed JSON (the npm client parses any JSON-typed answer, an empty one too).
      const bodyless = status === 204 || (status >= 300 && status < 400);
      response.writeHead(status, { 'content-type': text || bodyless ? 'text/plain; charset=utf-8' : 'application/json; charset=utf-8', ...headers });
      response.end(bodyless || payload === null ? undefined : text ? payload : JSON.stringify(payload));
    };
    let body: Record<string, unknown>;
    try {
      body = await readBody(request);
    } catch {
      return send(400, errorBody('Malformed JSON body'));
    }
    const method = request.method ?? 'GET';
    const rawPath = (request.url ?? '/').split('?')[0]!;
    const path = rawPath.startsWith(`${this.basePath}/`) ? rawPath.slice(this.basePath.length) : '/';
    recording.request = { method, path, query: Object.fromEntries(url.searchParams), headers: request.headers, body, at: arrivedAt, endedAt: Number.NaN };
    this.requests.push(recording.request);

    const fault = this.faults.find((candidate) => candidate.remaining > 0 && candidate.pattern.test(`${method} ${path}`) && candidate.when(body));
    if (fault !== undefined) {
      fault.remaining--;
      return send(fault.status, fault.body, fault.headers);
    }
    if (path === '/') return send(404, errorBody('Resource not found'));

    const grant = this.grants.get(request.headers.authorization ?? '');
    if (grant === undefined) return send(401, errorBody(MESSAGES.unauthorized));
    const segments = path.slice(1).split('/').map((segment) => decodeURIComponent(segment));
    const call: Call = { method, path, query: url.searchParams, body, grant };

    if (segments[0] === 'user' && segments.length === 1 && method === 'GET') {
      // Access tokens are no user: `GET /user` refuses them (facts §5).
      if (grant.kind === 'access-token') return send(403, errorBody(MESSAGES.notAccessible));
      if (!this.allowed(grant, NEEDS.readUser, send)) return;
      return send(200, { ...this.userJson(grant.user), created_on: '2020-01-01T00:00:00+00:00', is_staff: false, account_status: 'active', has_2fa_enabled: null });
    }
    if (segments[0] === 'workspaces' && segments[2] === 'permissions' && segments[3] === 'repositories' && segments[4] !== undefined && segments.length === 5 && method === 'GET') {
      return this.permissionsRoute(`${segments[1]}/${segments[4]}`, call, send);
    }
    if (segments[0] === 'repositories' && segments[1] !== undefined && segments[2] !== undefined) {
      const fullName = `${segments[1]}/${segments[2]}`;
      const repository = this.repositories.get(fullName);
      if (repository === undefined || !this.reaches(grant, repository)) return send(404, errorBody(MESSAGES.repositoryNotFound));
      // The rest of the path is taken raw: a diff spec holds `%0D` and a `src` path its own slashes.
      const rest = rawPath.slice(this.basePath.length).split('/').slice(4);
      return this.repositoryRoute(repository, rest, call, send);
    }
    send(404, errorBody('Resource not found'));
  }

  private reaches(grant: Grant, repository: FakeRepository): boolean {
    if (grant.kind === 'access-token') return grant.repositories!.has(`${repository.workspace}/${repository.slug}`);
    return repository.permissions.has(grant.user.uuid);
  }

  private permissionOf(grant: Grant, repository: FakeRepository): Permission | undefined {
    // An access token's rights are its scopes; the repository is its own.
    if (grant.kind === 'access-token') return grant.scopes.includes('repository:admin') ? 'admin' : 'write';
    return repository.permissions.get(grant.user.uuid);
  }

  /** Checks the grant's scopes; answers Bitbucket's 403 (with what was granted and required) when they fall short. */
  private allowed(grant: Grant, need: Need, send: Send): boolean {
    const required = grant.kind === 'access-token' ? need.accessToken : need.apiToken;
    const granted = grant.kind === 'access-token' ? grant.scopes.flatMap((scope) => [scope, ...(IMPLIED[scope] ?? [])]) : grant.scopes;
    if (granted.includes(required)) return true;
    send(403, errorBody(MESSAGES.scopes, { detail: { granted: grant.scopes, required: [required] } }));
    return false;
  }

  private permissionsRoute(fullName: string, call: Call, send: Send): void {
    const { grant, query } = call;
    // Access tokens cannot read permissions at all (facts §5).
    if (grant.kind === 'access-token') return send(403, errorBody(MESSAGES.notAccessible));
    const repository = this.repositories.get(fullName);
    if (repository === undefined || !this.reaches(grant, repository)) return send(404, errorBody(MESSAGES.repositoryNotFound));
    if (!this.allowed(grant, NEEDS.readRepository, send)) return;
    // Only a repository admin may read who else holds what.
    if (repository.permissions.get(grant.user.uuid) !== 'admin') return send(403, errorBody('You do not have admin access to this repository'));
    const filter = /^user\.(uuid|account_id)\s*=\s*"([^"]*)"$/.exec(query.get('q')?.trim() ?? '');
    if (query.get('q') !== null && filter === null) return send(400, errorBody(`Invalid filter: ${query.get('q')}`));
    const entries = [...repository.permissions.entries()].map(([uuid, permission]) => ({ uuid, permission }));
    const users = [...this.grants.values()].map((candidate) => candidate.user);
    const matching = entries
      .map(({ uuid, permission }) => ({ user: users.find((user) => user.uuid === uuid) ?? { ...bitbucketUser('unknown'), uuid }, permission }))
      .filter(({ user }) => filter === null || (filter[1] === 'uuid' ? user.uuid === filter[2] : user.account_id === filter[2]));
    const values = matching.map(({ user, permission }) => ({ type: 'repository_permission', permission, user: this.userJson(user), repository: { type: 'repository', full_name: fullName, name: repository.slug, uuid: repository.uuid } }));
    this.sendPage(values, call, send, { defaultLength: 10, maxLength: 100 });
  }

  private repositoryRoute(repository: FakeRepository, rest: string[], call: Call, send: Send): void {
    const { method, grant } = call;
    const [resource, id, sub, subId, leaf] = rest.map((segment) => decodeURIComponent(segment));
    if (resource === undefined && method === 'GET') {
      if (!this.allowed(grant, NEEDS.readRepository, send)) return;
      return send(200, this.repositoryJson(repository));
    }
    if (resource === 'hooks') return this.hooksRoute(repository, id, call, send);
    if (resource === 'commit' && id !== undefined) {
      const full = this.fullHash(repository, id);
      if (full === undefined) return send(404, errorBody(`Commit not found: ${id}`));
      if (sub === undefined && method === 'GET') {
        if (!this.allowed(grant, NEEDS.readRepository, send)) return;
        return send(200, this.commitJson(repository, full));
      }
      if (sub === 'statuses' && subId === 'build') return this.statusRoute(repository, full, leaf, call, send);
      if (sub === 'statuses' && subId === undefined && method === 'GET') {
        return this.sendPage(repository.statuses.filter((status) => status.commit === full).map((status) => this.statusJson(repository, status)), call, send, { defaultLength: 10, maxLength: 100 });
      }
    }
    if (resource === 'diff' && method === 'GET') return this.diffRoute(repository, rest.slice(1).join('/'), call, send);
    if (resource === 'diffstat' && method === 'GET') return this.diffstatRoute(repository, rest.slice(1).join('/'), call, send);
    if (resource === 'src' && id !== undefined && method === 'GET') return this.srcRoute(repository, id, rest.slice(2).map(decodeURIComponent).join('/'), call, send);
    if (resource === 'pullrequests' && id !== undefined) {
      const pullRequest = repository.pullRequests.get(Number(id));
      if (pullRequest === undefined || !/^\d+$/.test(id)) return send(404, errorBody(`Pull request not found: ${id}`));
      if (!this.allowed(grant, NEEDS.readPullRequest, send)) return;
      if (sub === undefined && method === 'GET') return send(200, this.pullRequestJson(repository, pullRequest));
      const spec = `${repository.workspace}/${repository.slug}:${pullRequest.source.commit}%0D${pullRequest.destination.commit}`;
      // Both redirect to the repository's diff of the pull request's revisions (facts §2), keeping the asked query (`pagelen`).
      if ((sub === 'diff' || sub === 'diffstat') && method === 'GET') {
        const query = new URLSearchParams(call.query);
        query.set('from_pullrequest_id', String(pullRequest.id));
        query.set('topic', 'true');
        return send(302, '', { location: `${this.apiUrl}/repositories/${repository.workspace}/${repository.slug}/${sub}/${spec}?${query.toString()}` });
      }
      if (sub === 'comments') return this.commentsRoute(repository, pullRequest, subId, leaf, call, send);
    }
    send(404, errorBody('Resource not found'));
  }

  /** The full hash of a commit named by its full hash or a prefix of at least 7 characters (12 in payloads). */
  private fullHash(repository: FakeRepository, hash: string): string | undefined {
    if (!/^[0-9a-f]{7,40}$/.test(hash)) return undefined;
    return [...repository.commits].find((full) => full.startsWith(hash));
  }

  /** A diff spec (`a..b`, or one commit) with each commit by its full hash: Bitbucket takes any prefix of 7 or more (facts §2). */
  private commitsOf(repository: FakeRepository, spec: string): string {
    return spec
      .split('..')
      .map((side) => this.fullHash(repository, side) ?? side)
      .join('..');
  }

  /** The pull request a diff spec of its redirect names (`ws/repo:<source>%0D<destination>`). */
  private pullRequestOfSpec(repository: FakeRepository, spec: string, query: URLSearchParams): FakePullRequest | undefined {
    const id = query.get('from_pullrequest_id');
    if (id === null) return undefined;
    const pullRequest = repository.pullRequests.get(Number(id));
    if (pullRequest === undefined) return undefined;
    const expected = `${repository.workspace}/${repository.slug}:${pullRequest.source.commit}%0D${pullRequest.destination.commit}`;
    return spec === expected || spec === decodeURIComponent(expected) ? pullRequest : undefined;
  }

  private diffRoute(repository: FakeRepository, spec: string, call: Call, send: Send): void {
    if (!this.allowed(call.grant, NEEDS.readRepository, send)) return;
    const pullRequest = this.pullRequestOfSpec(repository, spec, call.query);
    if (pullRequest !== undefined) return send(200, pullRequest.diff);
    // `topic` defaults to true (a three-dot diff); a push's two-commit diff must ask for `topic=false`.
    const topic = call.query.get('topic') === 'false' ? 'false' : 'true';
    const diff = repository.diffs.get(`${this.commitsOf(repository, decodeURIComponent(spec))}?topic=${topic}`);
    if (diff === undefined) return send(404, errorBody(`No diff for ${decodeURIComponent(spec)} (topic=${topic})`));
    send(200, diff);
  }

  private diffstatRoute(repository: FakeRepository, spec: string, call: Call, send: Send): void {
    if (!this.allowed(call.grant, NEEDS.readRepository, send)) return;
    const pullRequest = this.pullRequestOfSpec(repository, spec, call.query);
    const topic = call.query.get('topic') === 'false' ? 'false' : 'true';
    const diff = pullRequest?.diff ?? repository.diffs.get(`${this.commitsOf(repository, decodeURIComponent(spec))}?topic=${topic}`);
    if (diff === undefined) return send(404, errorBody(`No diff for ${decodeURIComponent(spec)}`));
    const base = `${this.apiUrl}/repositories/${repository.workspace}/${repository.slug}`;
    const entries = [...diffLines(diff).entries()].map(([path, file]) => {
      const side = (filePath: string) => ({ path: filePath, escaped_path: filePath, type: 'commit_file', links: { self: { href: `${base}/src/${pullRequest?.source.commit ?? 'HEAD'}/${filePath}` } } });
      return { type: 'diffstat', status: file.status, lines_added: file.added, lines_removed: file.removed, old: file.status === 'added' ? null : side(file.oldPath), new: file.status === 'removed' ? null : side(path) };
    });
    this.sendPage(entries, call, send, { defaultLength: 500, maxLength: 500 });
  }

  private srcRoute(repository: FakeRepository, commit: string, path: string, call: Call, send: Send): void {
    if (!this.allowed(call.grant, NEEDS.readRepository, send)) return;
    const full = this.fullHash(repository, commit);
    if (full === undefined) return send(404, errorBody(`Commit not found: ${commit}`));
    const file = repository.files.get(`${full}:${path}`);
    const meta = call.query.get('format') === 'meta';
    const links = (entryPath: string) => ({ self: { href: `${this.apiUrl}/repositories/${repository.workspace}/${repository.slug}/src/${full}/${entryPath}` } });
    if (file !== undefined) {
      if (meta) return send(200, { type: 'commit_file', path, size: Buffer.byteLength(file), mimetype: null, attributes: [], commit: { type: 'commit', hash: full }, links: links(path) });
      return send(200, file);
    }
    // A folder (or the root): its entries, paged, as Bitbucket lists a directory.
    const prefix = path === '' || path.endsWith('/') ? path : `${path}/`;
    const below = [...repository.files.entries()].filter(([key]) => key.startsWith(`${full}:${prefix}`)).map(([key, content]) => [key.slice(full.length + 1 + prefix.length), content] as const);
    // The root of a commit always exists, empty or not; a folder exists only with something in it.
    if (below.length === 0 && prefix !== '') return send(404, errorBody(`No such file or directory: ${path}`));
    const seen = new Set<string>();
    const entries = [];
    for (const [relative, content] of below) {
      const name = relative.split('/')[0]!;
      if (seen.has(name)) continue;
      seen.add(name);
      const entryPath = `${prefix}${name}`;
      entries.push(relative.includes('/') ? { type: 'commit_directory', path: entryPath, commit: { type: 'commit', hash: full }, links: links(`${entryPath}/`) } : { type: 'commit_file', path: entryPath, size: Buffer.byteLength(content), commit: { type: 'commit', hash: full }, links: links(entryPath) });
    }
    this.sendPage(entries, call, send, { defaultLength: 10, maxLength: 100 });
  }

  private statusRoute(repository: FakeRepository, commit: string, key: string | undefined, call: Call, send: Send): void {
    const { method, body, grant } = call;
    if (method === 'GET' && key !== undefined) {
      const status = repository.statuses.find((candidate) => candidate.commit === commit && candidate.key === key);
      return status === undefined ? send(404, errorBody(`No build status ${key}`)) : send(200, this.statusJson(repository, status));
    }
    if (!((method === 'POST' && key === undefined) || (method === 'PUT' && key !== undefined))) return send(405, errorBody('Method not allowed'));
    if (!this.allowed(grant, NEEDS.writeStatus, send)) return;
    const statusKey = key ?? body.key;
    if (typeof statusKey !== 'string' || statusKey.length === 0) return send(400, errorBody('key: This field is required.', { fields: { key: ['This field is required.'] } }));
    if (statusKey.length > 40) {
      const message = `Ensure this value has at most 40 characters (it has ${statusKey.length}).`;
      return send(400, errorBody(`key: ${message}`, { fields: { key: [message] } }));
    }
    const state = body.state;
    if (state !== 'INPROGRESS' && state !== 'SUCCESSFUL' && state !== 'FAILED' && state !== 'STOPPED') return send(400, errorBody('state: Select a valid choice.', { fields: { state: ['Select a valid choice.'] } }));
    if (typeof body.url !== 'string' || body.url.length === 0) return send(400, errorBody('url: This field is required.', { fields: { url: ['This field is required.'] } }));
    if (body.url.length >= 450) return send(400, errorBody('url: Ensure this value has at most 450 characters.', { fields: { url: ['Ensure this value has at most 450 characters.'] } }));
    if (typeof body.name === 'string' && body.name.length >= 255) return send(400, errorBody('name: Ensure this value has at most 255 characters.', { fields: { name: ['Ensure this value has at most 255 characters.'] } }));
    const existing = repository.statuses.find((candidate) => candidate.commit === commit && candidate.key === statusKey);
    if (method === 'PUT' && existing === undefined) return send(404, errorBody(`No build status ${statusKey}`));
    const at = now();
    // A repeated key overwrites the commit's status (facts §4).
    const status: FakeBuildStatus = existing ?? { key: statusKey, state, name: '', url: '', description: '', refname: null, commit, created_on: at, updated_on: at, writes: 0 };
    status.state = state;
    status.name = typeof body.name === 'string' ? body.name : status.name;
    status.url = body.url;
    status.description = typeof body.description === 'string' ? body.description : status.description;
    status.refname = typeof body.refname === 'string' ? body.refname : status.refname;
    status.updated_on = at;
    status.writes++;
    if (existing === undefined) repository.statuses.push(status);
    send(method === 'POST' ? 201 : 200, this.statusJson(repository, status));
  }

  private hooksRoute(repository: FakeRepository, uid: string | undefined, call: Call, send: Send): void {
    const { method, body, grant } = call;
    // Webhooks need admin on the repository (facts §1); an access token's are its scopes.
    if (grant.kind === 'api-token' && this.permissionOf(grant, repository) !== 'admin') return send(403, errorBody('You must be an administrator of this repository to manage its webhooks'));
    const json = (hook: FakeHook) => ({
      type: 'webhook_subscription',
      uuid: hook.uuid,
      url: hook.url,
      description: hook.description,
      subject_type: 'repository',
      subject: { type: 'repository', full_name: `${repository.workspace}/${repository.slug}`, uuid: repository.uuid },
      active: hook.active,
      events: hook.events,
      created_at: hook.created_at,
      secret_set: hook.secret !== null,
      links: { self: { href: `${this.apiUrl}/repositories/${repository.workspace}/${repository.slug}/hooks/${encodeURIComponent(hook.uuid)}` } },
    });
    if (uid === undefined && method === 'GET') {
      if (!this.allowed(grant, NEEDS.readWebhook, send)) return;
      return this.sendPage(repository.hooks.map(json), call, send, { defaultLength: 10, maxLength: 100 });
    }
    if (uid === undefined && method === 'POST') {
      if (!this.allowed(grant, NEEDS.writeWebhook, send)) return;
      if (typeof body.url !== 'string' || !/^https?:\/\/[^/]+/.test(body.url)) return send(400, errorBody('url: Enter a valid URL.', { fields: { url: ['Enter a valid URL.'] } }));
      const events = body.events;
      if (!Array.isArray(events) || events.length === 0 || !events.every((event) => typeof event === 'string' && /^(repo|pullrequest|issue|project):[a-z_]+$/.test(event))) {
        return send(400, errorBody('events: Enter a list of valid events.', { fields: { events: ['Enter a list of valid events.'] } }));
      }
      // Pull-request events need the `pullrequest` scope besides `webhook` (facts §1).
      if (events.some((event) => String(event).startsWith('pullrequest:')) && !this.allowed(grant, NEEDS.readPullRequest, send)) return;
      const secret = body.secret;
      if (secret !== undefined && secret !== null && (typeof secret !== 'string' || secret.length > 128)) return send(400, errorBody('secret: Ensure this value has at most 128 characters.', { fields: { secret: ['Ensure this value has at most 128 characters.'] } }));
      const hook: FakeHook = {
        uuid: braces(randomUUID()),
        url: body.url,
        description: typeof body.description === 'string' ? body.description : '',
        active: body.active === undefined ? true : body.active === true,
        events: events as string[],
        secret: typeof secret === 'string' && secret.length > 0 ? secret : null,
        created_at: now(),
      };
      repository.hooks.push(hook);
      return send(201, json(hook), { location: json(hook).links.self.href });
    }
    const hook = repository.hooks.find((candidate) => candidate.uuid === uid || candidate.uuid === `{${uid}}`);
    if (hook === undefined) return send(404, errorBody('Webhook not found'));
    if (method === 'GET') {
      if (!this.allowed(grant, NEEDS.readWebhook, send)) return;
      return send(200, json(hook));
    }
    if (method === 'DELETE') {
      if (!this.allowed(grant, NEEDS.deleteWebhook, send)) return;
      repository.hooks.splice(repository.hooks.indexOf(hook), 1);
      return send(204, null);
    }
    send(405, errorBody('Method not allowed'));
  }

  private commentsRoute(repository: FakeRepository, pullRequest: FakePullRequest, id: string | undefined, leaf: string | undefined, call: Call, send: Send): void {
    const { method, body, grant } = call;
    const json = (comment: FakeComment) => this.commentJson(repository, pullRequest, comment);
    if (id === undefined && method === 'GET') return this.sendPage(pullRequest.comments.map(json), call, send, { defaultLength: 10, maxLength: 100 });
    if (id === undefined && method === 'POST') {
      if (!this.allowed(grant, NEEDS.writePullRequest, send)) return;
      const raw = (body.content as { raw?: unknown } | undefined)?.raw;
      if (typeof raw !== 'string' || raw.length === 0) return send(400, errorBody('content: This field is required.', { fields: { content: ['This field is required.'] } }));
      const parentId = (body.parent as { id?: unknown } | undefined)?.id;
      let parent: FakeComment | undefined;
      if (parentId !== undefined) {
        parent = pullRequest.comments.find((comment) => comment.id === parentId && !comment.deleted);
        if (parent === undefined) return send(400, errorBody('parent: The parent comment does not exist.', { fields: { parent: ['The parent comment does not exist.'] } }));
      }
      let inline: FakeComment['inline'] = parent?.inline ?? null;
      if (parent === undefined && body.inline !== undefined && body.inline !== null) {
        const placed = this.placeInline(pullRequest, body.inline as Record<string, unknown>);
        if (typeof placed === 'string') return send(400, errorBody(placed, { fields: { inline: [placed] } }));
        inline = placed;
      }
      const comment = this.comment(raw, grant.user, parent?.id ?? null, inline);
      pullRequest.comments.push(comment);
      return send(201, json(comment), { location: json(comment).links.self.href });
    }
    const comment = pullRequest.comments.find((candidate) => candidate.id === Number(id));
    if (comment === undefined || comment.deleted) return send(404, errorBody(`Comment not found: ${id}`));
    if (leaf === undefined && method === 'GET') return send(200, json(comment));
    if (leaf === undefined && method === 'PUT') {
      if (!this.allowed(grant, NEEDS.writePullRequest, send)) return;
      if (comment.user.uuid !== grant.user.uuid) return send(403, errorBody('You can only edit your own comments'));
      const raw = (body.content as { raw?: unknown } | undefined)?.raw;
      if (typeof raw !== 'string' || raw.length === 0) return send(400, errorBody('content: This field is required.', { fields: { content: ['This field is required.'] } }));
      comment.raw = raw;
      comment.updated_on = now();
      comment.edits++;
      return send(200, json(comment));
    }
    if (leaf === undefined && method === 'DELETE') {
      if (!this.allowed(grant, NEEDS.writePullRequest, send)) return;
      if (comment.user.uuid !== grant.user.uuid) return send(403, errorBody('You can only delete your own comments'));
      comment.deleted = true;
      return send(204, null);
    }
    if (leaf === 'resolve') {
      if (!this.allowed(grant, NEEDS.writePullRequest, send)) return;
      if (method === 'POST') {
        // Only a top-level comment on the diff can be resolved (facts §3).
        if (comment.parentId !== null || comment.inline === null) return send(403, errorBody('Only top-level comments on the diff can be resolved'));
        if (comment.resolution !== null) return send(409, errorBody('This comment is already resolved'));
        comment.resolution = { user: grant.user, created_on: now() };
        return send(200, { type: 'comment_resolution', user: this.userJson(grant.user), created_on: comment.resolution.created_on });
      }
      if (method === 'DELETE') {
        if (comment.resolution === null) return send(404, errorBody('This comment is not resolved'));
        comment.resolution = null;
        return send(204, null);
      }
    }
    send(405, errorBody('Method not allowed'));
  }

  /**
   * Where an inline comment lands, or why not (a message). `to` is a new-side line (added or
   * context), `from` an old-side one; with `from`, `to` is dropped (facts §3); `start_to` must not
   * pass `to`. Each named line must be in the pull request's diff (facts: "none"; see the class doc).
   */
  private placeInline(pullRequest: FakePullRequest, inline: Record<string, unknown>): FakeComment['inline'] | string {
    const path = inline.path;
    if (typeof path !== 'string' || path.length === 0) return 'inline.path: This field is required.';
    const to = inline.to === undefined || inline.to === null ? undefined : positiveInteger(inline.to);
    const from = inline.from === undefined || inline.from === null ? undefined : positiveInteger(inline.from);
    const startTo = inline.start_to === undefined || inline.start_to === null ? undefined : positiveInteger(inline.start_to);
    if ([[inline.to, to], [inline.from, from], [inline.start_to, startTo]].some(([given, read]) => given !== undefined && given !== null && read === undefined)) return 'inline: line numbers must be positive integers';
    if (to === undefined && from === undefined) return 'inline: one of "from" or "to" is required';
    const file = diffLines(pullRequest.diff).get(path);
    if (file === undefined) return `inline.path: ${path} is not part of this pull request's diff`;
    if (from !== undefined) {
      if (!file.oldLines.has(from)) return `inline.from: line ${from} of ${path} is not part of the diff`;
      return { path, from, to: null };
    }
    if (!file.newLines.has(to!)) return `inline.to: line ${to} of ${path} is not part of the diff`;
    if (startTo !== undefined) {
      if (startTo > to!) return '"start_to" must be less than or equal to "to"';
      if (!file.newLines.has(startTo)) return `inline.start_to: line ${startTo} of ${path} is not part of the diff`;
      return { path, from: null, to: to!, start_to: startTo, start_from: null };
    }
    return { path, from: null, to: to! };
  }

  /** Bitbucket's paging: `{pagelen, size, page, values, next?, previous?}`, `next` a whole URL. */
  private sendPage(values: unknown[], call: Call, send: Send, limits: { defaultLength: number; maxLength: number }): void {
    const pagelen = Math.min(Math.max(Number(call.query.get('pagelen') ?? limits.defaultLength) || limits.defaultLength, 1), limits.maxLength);
    const page = Math.max(Number(call.query.get('page') ?? 1) || 1, 1);
    const link = (target: number) => {
      const query = new URLSearchParams(call.query);
      query.set('page', String(target));
      query.set('pagelen', String(pagelen));
      return `${this.apiUrl}${call.path}?${query.toString()}`;
    };
    const last = Math.max(Math.ceil(values.length / pagelen), 1);
    send(200, {
      pagelen,
      size: values.length,
      page,
      values: values.slice((page - 1) * pagelen, page * pagelen),
      ...(page < last ? { next: link(page + 1) } : {}),
      ...(page > 1 ? { previous: link(page - 1) } : {}),
    });
  }

  private comment(raw: string, user: FakeBitbucketUser, parentId: number | null, inline: FakeComment['inline']): FakeComment {
    const at = now();
    return { id: newId(), raw, user, created_on: at, updated_on: at, parentId, inline, deleted: false, resolution: null, edits: 0 };
  }

  userJson(user: FakeBitbucketUser) {
    return {
      display_name: user.display_name,
      links: { self: { href: `${this.apiUrl}/users/${encodeURIComponent(user.uuid)}` }, avatar: { href: `${this.url}/avatar/${user.account_id}` }, html: { href: `${this.url}/${encodeURIComponent(user.uuid)}/` } },
      type: user.type,
      uuid: user.uuid,
      account_id: user.account_id,
      nickname: user.nickname,
    };
  }

  repositoryJson(repository: FakeRepository) {
    const fullName = `${repository.workspace}/${repository.slug}`;
    return {
      type: 'repository',
      full_name: fullName,
      links: { self: { href: `${this.apiUrl}/repositories/${fullName}` }, html: { href: `${this.url}/${fullName}` } },
      name: repository.slug,
      slug: repository.slug,
      uuid: repository.uuid,
      is_private: true,
      scm: 'git',
      mainbranch: { type: 'branch', name: 'main' },
      workspace: { type: 'workspace', uuid: repository.workspaceUuid, name: repository.workspace, slug: repository.workspace },
      created_on: '2024-01-01T00:00:00.000000+00:00',
      updated_on: now(),
    };
  }

  private commitJson(repository: FakeRepository, hash: string) {
    const fullName = `${repository.workspace}/${repository.slug}`;
    return {
      type: 'commit',
      hash,
      date: '2026-01-01T00:00:00+00:00',
      author: { type: 'author', raw: 'Fixture <fixture@example.com>' },
      message: 'commit\n',
      parents: [],
      links: { self: { href: `${this.apiUrl}/repositories/${fullName}/commit/${hash}` }, html: { href: `${this.url}/${fullName}/commits/${hash}` } },
      repository: { type: 'repository', full_name: fullName, uuid: repository.uuid },
    };
  }

  private statusJson(repository: FakeRepository, status: FakeBuildStatus) {
    const fullName = `${repository.workspace}/${repository.slug}`;
    return {
      type: 'build',
      key: status.key,
      state: status.state,
      name: status.name,
      url: status.url,
      description: status.description,
      refname: status.refname,
      created_on: status.created_on,
      updated_on: status.updated_on,
      links: { self: { href: `${this.apiUrl}/repositories/${fullName}/commit/${status.commit}/statuses/build/${status.key}` }, commit: { href: `${this.apiUrl}/repositories/${fullName}/commit/${status.commit}` } },
    };
  }

  pullRequestJson(repository: FakeRepository, pullRequest: FakePullRequest) {
    const fullName = `${repository.workspace}/${repository.slug}`;
    const repositoryRef = { type: 'repository', full_name: fullName, name: repository.slug, uuid: repository.uuid, links: { self: { href: `${this.apiUrl}/repositories/${fullName}` }, html: { href: `${this.url}/${fullName}` } } };
    const commit = (hash: string) => ({ type: 'commit', hash, links: { self: { href: `${this.apiUrl}/repositories/${fullName}/commit/${hash}` }, html: { href: `${this.url}/${fullName}/commits/${hash}` } } });
    const spec = `${fullName}:${pullRequest.source.commit}%0D${pullRequest.destination.commit}`;
    const self = `${this.apiUrl}/repositories/${fullName}/pullrequests/${pullRequest.id}`;
    return {
      type: 'pullrequest',
      id: pullRequest.id,
      title: pullRequest.title,
      description: pullRequest.description,
      state: pullRequest.state,
      draft: pullRequest.draft,
      author: this.userJson(pullRequest.author),
      source: { branch: { name: pullRequest.source.branch }, commit: commit(pullRequest.source.commit), repository: repositoryRef },
      destination: { branch: { name: pullRequest.destination.branch }, commit: commit(pullRequest.destination.commit), repository: repositoryRef },
      merge_commit: null,
      close_source_branch: false,
      closed_by: null,
      reason: '',
      comment_count: pullRequest.comments.filter((comment) => !comment.deleted).length,
      task_count: 0,
      reviewers: [],
      participants: [],
      created_on: '2026-01-01T00:00:00.000000+00:00',
      updated_on: now(),
      links: {
        self: { href: self },
        html: { href: `${this.url}/${fullName}/pull-requests/${pullRequest.id}` },
        commits: { href: `${self}/commits` },
        comments: { href: `${self}/comments` },
        diff: { href: `${this.apiUrl}/repositories/${fullName}/diff/${spec}?from_pullrequest_id=${pullRequest.id}&topic=true` },
        diffstat: { href: `${this.apiUrl}/repositories/${fullName}/diffstat/${spec}?from_pullrequest_id=${pullRequest.id}&topic=true` },
        statuses: { href: `${self}/statuses` },
      },
    };
  }

  commentJson(repository: FakeRepository, pullRequest: FakePullRequest, comment: FakeComment) {
    const fullName = `${repository.workspace}/${repository.slug}`;
    const self = `${this.apiUrl}/repositories/${fullName}/pullrequests/${pullRequest.id}/comments/${comment.id}`;
    return {
      type: 'pullrequest_comment',
      id: comment.id,
      created_on: comment.created_on,
      updated_on: comment.updated_on,
      content: { type: 'rendered', raw: comment.raw, markup: 'markdown', html: `<p>${comment.raw.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;')}</p>` },
      user: this.userJson(comment.user),
      deleted: comment.deleted,
      pending: false,
      ...(comment.inline === null ? {} : { inline: comment.inline }),
      ...(comment.parentId === null ? {} : { parent: { id: comment.parentId, links: { self: { href: self.replace(/\/\d+$/, `/${comment.parentId}`) } } } }),
      ...(comment.resolution === null ? {} : { resolution: { type: 'comment_resolution', user: this.userJson(comment.resolution.user), created_on: comment.resolution.created_on } }),
      pullrequest: { type: 'pullrequest', id: pullRequest.id, title: pullRequest.title, links: { self: { href: `${this.apiUrl}/repositories/${fullName}/pullrequests/${pullRequest.id}` }, html: { href: `${this.url}/${fullName}/pull-requests/${pullRequest.id}` } } },
      links: { self: { href: self }, html: { href: `${this.url}/${fullName}/pull-requests/${pullRequest.id}/_/diff#comment-${comment.id}` } },
    };
  }
}
