import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { closeServer, listenOnLoopback } from '../helpers/net.js';

/** GitLab's access levels (`access_level` of a member). */
export const ACCESS = { guest: 10, reporter: 20, developer: 30, maintainer: 40, owner: 50 } as const;

export interface FakeGitLabUser {
  id: number;
  username: string;
  name: string;
  /** Bot users: project and group access tokens' own users, service accounts. */
  bot?: boolean;
}

/** One entry of GitLab's diffs APIs (`/merge_requests/:iid/diffs`, `compare`'s `diffs`). */
export interface FakeDiffEntry {
  old_path: string;
  new_path: string;
  a_mode: string;
  b_mode: string;
  /** The hunks only, from the first `@@`; GitLab writes no `diff --git`/`---`/`+++` headers. */
  diff: string;
  new_file: boolean;
  renamed_file: boolean;
  deleted_file: boolean;
  generated_file?: boolean;
  /** GitLab leaves `diff` empty for a file over its diff limits and says so here. */
  too_large?: boolean;
}

export interface DiffRefs {
  base_sha: string;
  start_sha: string;
  head_sha: string;
}

export interface FakeNote {
  id: number;
  type: 'DiffNote' | 'DiscussionNote' | null;
  body: string;
  author: ReturnType<typeof userJson>;
  created_at: string;
  updated_at: string;
  system: boolean;
  noteable_id: number;
  noteable_type: 'MergeRequest';
  noteable_iid: number;
  resolvable: boolean;
  resolved: boolean;
  resolved_by: ReturnType<typeof userJson> | null;
  position?: Record<string, unknown>;
  /** The fake's own bookkeeping (how many times it was edited); not in GitLab's answer. */
  edits: number;
}

export interface FakeDiscussion {
  id: string;
  individual_note: boolean;
  notes: FakeNote[];
}

export interface FakeHook {
  id: number;
  url: string;
  /** Kept to check what the service registered; GitLab never returns it. */
  token: string | undefined;
  project_id: number;
  push_events: boolean;
  merge_requests_events: boolean;
  note_events: boolean;
  enable_ssl_verification: boolean;
  created_at: string;
}

export interface FakeStatus {
  id: number;
  sha: string;
  status: string;
  name: string;
  target_url: string | null;
  description: string | null;
  author: ReturnType<typeof userJson>;
  created_at: string;
}

interface FakeMergeRequest {
  id: number;
  iid: number;
  title: string;
  description: string;
  state: 'opened' | 'closed' | 'merged';
  draft: boolean;
  source_branch: string;
  target_branch: string;
  author: FakeGitLabUser;
  diffRefs: DiffRefs;
  diffs: FakeDiffEntry[];
  discussions: FakeDiscussion[];
  awards: Array<{ id: number; name: string; user: FakeGitLabUser; noteId: number }>;
}

interface FakeProject {
  id: number;
  path: string;
  members: Map<number, number>;
  hooks: FakeHook[];
  mergeRequests: Map<number, FakeMergeRequest>;
  files: Map<string, string>;
  archives: Map<string, Buffer>;
  /** A git repository (test/helpers/git-fixture.ts) the tree, archive and raw files are read from. */
  gitDir?: string;
  compares: Map<string, FakeDiffEntry[]>;
  statuses: FakeStatus[];
}

interface TokenGrant {
  user: FakeGitLabUser;
  /** `api` allows writes, `read_api` only reads (GitLab answers a write with 403 `insufficient_scope`). */
  scopes: string[];
}

type Send = (status: number, payload: unknown, headers?: Record<string, string>) => void;

interface Call {
  method: string;
  path: string;
  query: URLSearchParams;
  body: Record<string, unknown>;
  grant: TokenGrant;
}

export interface RecordedGitLabRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
  /** When it arrived (epoch milliseconds, sub-millisecond precision): benches time a step by it. */
  at: number;
  /** When its answer was sent (same clock; NaN until then): `at`…`endedAt` is the fake's own time on it. */
  endedAt: number;
}

let nextId = 7_000;
const newId = () => nextId++;
const now = () => new Date().toISOString();
const sha1 = (text: string) => createHash('sha1').update(text).digest('hex');

/** GitLab's `line_code`: the SHA-1 of the file's path, the old line and the new line. */
export const lineCode = (path: string, oldLine: number, newLine: number) => `${sha1(path)}_${oldLine}_${newLine}`;

const userJson = (user: FakeGitLabUser, baseUrl: string) => ({
  id: user.id,
  username: user.username,
  name: user.name,
  state: 'active',
  avatar_url: null,
  web_url: `${baseUrl}/${user.username}`,
});

const NOT_FOUND = (what: string) => ({ message: `404 ${what} Not Found` });
const REFUSED_POSITION = { message: '400 Bad request - Note {:line_code=>["can\'t be blank", "must be a valid line code"], :position=>["is incomplete"]}' };

/** Every line of a GitLab diff with its old and new numbers, and its line code (as GitLab's diff parser counts them). */
export function diffLines(entry: FakeDiffEntry): Array<{ kind: '+' | '-' | ' '; old: number | null; new: number | null; code: string }> {
  const lines = [];
  let oldLine = 0;
  let newLine = 0;
  for (const text of entry.diff.split('\n')) {
    const header = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(text);
    if (header) {
      oldLine = Number(header[1]);
      newLine = Number(header[2]);
      // An empty side (`-0,0`) starts counting at 1, as GitLab's parser does.
      if (oldLine === 0) oldLine = 1;
      if (newLine === 0) newLine = 1;
      continue;
    }
    const kind = text[0];
    if (kind === '+') lines.push({ kind, old: null, new: newLine, code: lineCode(entry.new_path, oldLine, newLine++) } as const);
    else if (kind === '-') lines.push({ kind, old: oldLine, new: null, code: lineCode(entry.new_path, oldLine++, newLine) } as const);
    else if (kind === ' ') lines.push({ kind, old: oldLine, new: newLine, code: lineCode(entry.new_path, oldLine++, newLine++) } as const);
  }
  return lines;
}

/** Rails' nested parameters: `position[line_range][start][line_code]` becomes an object path. */
function nestParameters(entries: Iterable<[string, string]>): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const [key, value] of entries) {
    const parts = key.replace(/\]/g, '').split('[');
    let target = root;
    for (const part of parts.slice(0, -1)) target = (target[part] ??= {}) as Record<string, unknown>;
    target[parts.at(-1)!] = value;
  }
  return root;
}

async function readBody(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  if (raw.length === 0) return {};
  const type = request.headers['content-type'] ?? '';
  if (type.startsWith('application/json')) return JSON.parse(raw.toString()) as Record<string, unknown>;
  if (type.startsWith('multipart/form-data') || type.startsWith('application/x-www-form-urlencoded')) {
    const form = await new Response(raw, { headers: { 'content-type': type } }).formData();
    return nestParameters([...form.entries()].map(([key, value]) => [key, typeof value === 'string' ? value : value.name]));
  }
  return {};
}

/** A git command's output in the fake's repository; undefined without one, or when git refuses (an unknown ref or path). */
function gitOutput(gitDir: string | undefined, args: string[]): Buffer | undefined {
  if (gitDir === undefined) return undefined;
  try {
    return execFileSync('git', args, { cwd: gitDir, stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 64 * 1024 * 1024 });
  } catch {
    return undefined;
  }
}

const truthy = (value: unknown) => value === true || value === 'true';
const numeric = (value: unknown) => (value === undefined || value === null || value === '' ? null : Number(value));

/**
 * A local GitLab REST v4: the calls the service makes for merge requests, in GitLab's shapes and
 * with GitLab's refusals (an unknown token 401, a project the token cannot see 404, a write with a
 * read-only token 403, a position off the diff 400), so the real client code runs in tests.
 * `@gitbeaker/rest` checks it (test/contract/fake-gitlab.contract.test.ts).
 */
export class FakeGitLab {
  readonly requests: RecordedGitLabRequest[] = [];
  private readonly tokens = new Map<string, TokenGrant>();
  private readonly users = new Map<number, FakeGitLabUser>();
  private readonly projects = new Map<number, FakeProject>();
  /** The next calls whose `METHOD path` matches answer this fault (a 429 with its headers, a 401 after a revoked token, a 5xx). */
  readonly faults: Array<{ pattern: RegExp; status: number; body: unknown; headers: Record<string, string>; remaining: number }> = [];
  private server: Server | undefined;
  url = '';

  /** `basePath`: a self-managed instance on a sub-path (`/gitlab`): its API is `<url>/api/v4`, `url` ending in the sub-path. */
  constructor(private readonly basePath = '') {}

  async start(): Promise<this> {
    this.server = createServer((request, response) => void this.handle(request, response));
    this.url = `${await listenOnLoopback(this.server)}${this.basePath}`;
    return this;
  }

  stop(): Promise<void> {
    return closeServer(this.server);
  }

  addUser(user: FakeGitLabUser): FakeGitLabUser {
    this.users.set(user.id, user);
    return user;
  }

  /** An access token of `user`; `read_api` tokens cannot write. */
  issueToken(user: FakeGitLabUser, scopes: string[] = ['api'], token = `glpat-${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`): string {
    this.addUser(user);
    this.tokens.set(token, { user, scopes });
    return token;
  }

  revokeToken(token: string): void {
    this.tokens.delete(token);
  }

  addProject(path: string, id = newId()): FakeProject {
    const project: FakeProject = { id, path, members: new Map(), hooks: [], mergeRequests: new Map(), files: new Map(), archives: new Map(), compares: new Map(), statuses: [] };
    this.projects.set(id, project);
    return project;
  }

  project(idOrPath: number | string): FakeProject {
    const project = this.findProject(String(idOrPath));
    if (project === undefined) throw new Error(`no fake project ${idOrPath}`);
    return project;
  }

  addMember(projectId: number, user: FakeGitLabUser, accessLevel: number): void {
    this.addUser(user);
    this.project(projectId).members.set(user.id, accessLevel);
  }

  /** Opens (or moves the head of) a merge request; its diff is the given entries. */
  openMergeRequest(projectId: number, iid: number, options: { title?: string; author: FakeGitLabUser; diffRefs: DiffRefs; diffs: FakeDiffEntry[]; draft?: boolean; targetBranch?: string }): FakeMergeRequest {
    const project = this.project(projectId);
    const existing = project.mergeRequests.get(iid);
    const mergeRequest: FakeMergeRequest = existing ?? {
      id: newId(),
      iid,
      title: options.title ?? `Merge request ${iid}`,
      description: '',
      state: 'opened',
      draft: options.draft ?? false,
      source_branch: `feature-${iid}`,
      target_branch: options.targetBranch ?? 'main',
      author: this.addUser(options.author),
      diffRefs: options.diffRefs,
      diffs: options.diffs,
      discussions: [],
      awards: [],
    };
    mergeRequest.diffRefs = options.diffRefs;
    mergeRequest.diffs = options.diffs;
    if (options.draft !== undefined) mergeRequest.draft = options.draft;
    project.mergeRequests.set(iid, mergeRequest);
    return mergeRequest;
  }

  mergeRequest(projectId: number, iid: number): FakeMergeRequest {
    const mergeRequest = this.project(projectId).mergeRequests.get(iid);
    if (mergeRequest === undefined) throw new Error(`no fake merge request !${iid}`);
    return mergeRequest;
  }

  /** A person's note on a merge request (for commands). */
  addNote(projectId: number, iid: number, body: string, author: FakeGitLabUser): FakeNote {
    const mergeRequest = this.mergeRequest(projectId, iid);
    const note = this.note(mergeRequest, body, this.addUser(author), null);
    mergeRequest.discussions.push({ id: sha1(`discussion-${note.id}`), individual_note: true, notes: [note] });
    return note;
  }

  setFile(projectId: number, ref: string, path: string, content: string): void {
    this.project(projectId).files.set(`${ref}:${path}`, content);
  }

  setArchive(projectId: number, sha: string, tarGz: Buffer): void {
    this.project(projectId).archives.set(sha, tarGz);
  }

  /** Serves the repository API (tree, archive, raw files) from a git repository, e.g. `createGitFixture`'s. */
  setRepository(projectId: number, gitDir: string): void {
    this.project(projectId).gitDir = gitDir;
  }

  setCompare(projectId: number, from: string, to: string, diffs: FakeDiffEntry[]): void {
    this.project(projectId).compares.set(`${from}...${to}`, diffs);
  }

  /** The next `times` calls matching `pattern` (against `METHOD /api/v4/...`) answer `status`. */
  fail(pattern: RegExp, status: number, options: { times?: number; headers?: Record<string, string>; body?: unknown } = {}): void {
    this.faults.push({ pattern, status, headers: options.headers ?? {}, body: options.body ?? { message: `${status} fault` }, remaining: options.times ?? 1 });
  }

  private findProject(id: string): FakeProject | undefined {
    if (/^\d+$/.test(id)) return this.projects.get(Number(id));
    return [...this.projects.values()].find((project) => project.path === id);
  }

  private note(mergeRequest: FakeMergeRequest, body: string, author: FakeGitLabUser, type: FakeNote['type'], position?: Record<string, unknown>): FakeNote {
    const at = now();
    return {
      id: newId(),
      type,
      body,
      author: userJson(author, this.url),
      created_at: at,
      updated_at: at,
      system: false,
      noteable_id: mergeRequest.id,
      noteable_type: 'MergeRequest',
      noteable_iid: mergeRequest.iid,
      resolvable: type === 'DiffNote' || type === 'DiscussionNote',
      resolved: false,
      resolved_by: null,
      ...(position === undefined ? {} : { position }),
      edits: 0,
    };
  }

  private async handle(request: IncomingMessage, response: ServerResponse) {
    const arrivedAt = performance.timeOrigin + performance.now();
    const url = new URL(request.url ?? '/', this.url);
    // Set once the request is recorded (its body read): the answer's end is stamped on it.
    const recording: { request?: RecordedGitLabRequest } = {};
    response.on('finish', () => {
      if (recording.request !== undefined) recording.request.endedAt = performance.timeOrigin + performance.now();
    });
    const send: Send = (status, payload, headers = {}) => {
      const binary = Buffer.isBuffer(payload);
      const text = typeof payload === 'string';
      response.writeHead(status, { 'content-type': binary ? 'application/octet-stream' : text ? 'text/plain; charset=utf-8' : 'application/json', ...headers });
      response.end(binary || text ? payload : status === 204 ? undefined : JSON.stringify(payload));
    };
    let body: Record<string, unknown>;
    try {
      body = await readBody(request);
    } catch {
      return send(400, { message: '400 Bad request - the body could not be parsed' });
    }
    const method = request.method ?? 'GET';
    // The raw path: a project's path arrives URL-encoded (`group%2Fproject`) in one segment.
    const fullPath = (request.url ?? '/').split('?')[0]!;
    // Outside the instance's sub-path, nothing is GitLab's.
    const path = fullPath.startsWith(`${this.basePath}/`) ? fullPath.slice(this.basePath.length) : '/';
    recording.request = { method, path, query: Object.fromEntries(url.searchParams), headers: request.headers, body, at: arrivedAt, endedAt: Number.NaN };
    this.requests.push(recording.request);

    const fault = this.faults.find((candidate) => candidate.remaining > 0 && candidate.pattern.test(`${method} ${path}`));
    if (fault !== undefined) {
      fault.remaining--;
      return send(fault.status, fault.body, fault.headers);
    }
    if (!path.startsWith('/api/v4/')) return send(404, { error: '404 Not Found' });

    const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    const token = (request.headers['private-token'] as string | undefined) ?? bearer;
    const grant = token === undefined ? undefined : this.tokens.get(token);
    if (grant === undefined) return send(401, { message: '401 Unauthorized' });
    const segments = path.slice('/api/v4/'.length).split('/');
    const call: Call = { method, path, query: url.searchParams, body, grant };

    if (segments[0] === 'user' && segments.length === 1 && method === 'GET') return send(200, { ...userJson(grant.user, this.url), bot: grant.user.bot ?? false });
    if (segments[0] === 'users' && segments.length === 2 && method === 'GET') {
      const user = this.users.get(Number(segments[1]));
      return user === undefined ? send(404, NOT_FOUND('User')) : send(200, { ...userJson(user, this.url), bot: user.bot ?? false });
    }
    if (segments[0] === 'projects' && segments[1] !== undefined) {
      const project = this.findProject(decodeURIComponent(segments[1]));
      // GitLab hides what a token cannot see: a project without membership is "not found".
      if (project === undefined || !project.members.has(grant.user.id)) return send(404, NOT_FOUND('Project'));
      if (method !== 'GET' && !grant.scopes.includes('api')) {
        return send(403, { error: 'insufficient_scope', error_description: 'The request requires higher privileges than provided by the access token.', scope: 'api' });
      }
      return this.projectRoute(project, segments.slice(2), call, send);
    }
    send(404, { error: '404 Not Found' });
  }

  private projectJson(project: FakeProject) {
    const name = project.path.split('/').at(-1)!;
    return {
      id: project.id,
      name,
      path: name,
      path_with_namespace: project.path,
      name_with_namespace: project.path.split('/').join(' / '),
      default_branch: 'main',
      visibility: 'private',
      web_url: `${this.url}/${project.path}`,
      http_url_to_repo: `${this.url}/${project.path}.git`,
      namespace: { id: project.id + 1, name: project.path.split('/')[0], path: project.path.split('/')[0], kind: 'group', full_path: project.path.split('/').slice(0, -1).join('/') },
      created_at: '2024-01-01T00:00:00.000Z',
      last_activity_at: now(),
    };
  }

  private projectRoute(project: FakeProject, rest: string[], call: Call, send: Send): void {
    const { method, grant } = call;
    const access = project.members.get(grant.user.id) ?? 0;
    const [resource, id, sub, subId, leaf, leafId, tail] = rest;
    if (resource === undefined && method === 'GET') return send(200, this.projectJson(project));

    if (resource === 'hooks') return this.hooksRoute(project, id, access, call, send);
    if (resource === 'members' && id === 'all' && sub !== undefined && method === 'GET') {
      const level = project.members.get(Number(sub));
      const user = this.users.get(Number(sub));
      return level === undefined || user === undefined ? send(404, NOT_FOUND('Member')) : send(200, { ...userJson(user, this.url), access_level: level, created_at: '2024-01-01T00:00:00.000Z', expires_at: null });
    }
    if (resource === 'statuses' && id !== undefined && method === 'POST') return this.postStatus(project, id, call, send);
    if (resource === 'repository') return this.repositoryRoute(project, rest.slice(1), call, send);
    if (resource === 'merge_requests' && id !== undefined) {
      const mergeRequest = project.mergeRequests.get(Number(id));
      if (mergeRequest === undefined) return send(404, NOT_FOUND('Merge Request'));
      if (sub === undefined && method === 'GET') return send(200, this.mergeRequestJson(project, mergeRequest));
      if (sub === 'diffs' && method === 'GET') return this.pagedDiffs(project, mergeRequest, call, send);
      if (sub === 'discussions') return this.discussionsRoute(mergeRequest, subId, leaf, leafId, call, send);
      if (sub === 'notes') return this.notesRoute(mergeRequest, subId, leaf, leafId, tail, call, send);
    }
    send(404, { error: '404 Not Found' });
  }

  private hooksRoute(project: FakeProject, id: string | undefined, access: number, call: Call, send: Send): void {
    // Webhooks are a Maintainer's business.
    if (access < ACCESS.maintainer) return send(403, { message: '403 Forbidden' });
    const { method, body } = call;
    if (id === undefined && method === 'GET') return send(200, project.hooks.map(({ token: _token, ...hook }) => hook));
    if (id === undefined && method === 'POST') {
      if (typeof body.url !== 'string' || !/^https?:\/\//.test(body.url)) return send(400, { message: { url: ['is blocked: Only allowed schemes are http, https'] } });
      const hook: FakeHook = {
        id: newId(),
        url: body.url,
        token: typeof body.token === 'string' ? body.token : undefined,
        project_id: project.id,
        // GitLab's defaults: push events on, the others off.
        push_events: body.push_events === undefined ? true : truthy(body.push_events),
        merge_requests_events: truthy(body.merge_requests_events),
        note_events: truthy(body.note_events),
        enable_ssl_verification: body.enable_ssl_verification === undefined ? true : truthy(body.enable_ssl_verification),
        created_at: now(),
      };
      project.hooks.push(hook);
      const { token: _token, ...answer } = hook;
      return send(201, answer);
    }
    const index = project.hooks.findIndex((hook) => hook.id === Number(id));
    if (index === -1) return send(404, NOT_FOUND('Hook'));
    if (method === 'GET') {
      const { token: _token, ...answer } = project.hooks[index]!;
      return send(200, answer);
    }
    if (method === 'DELETE') {
      project.hooks.splice(index, 1);
      return send(204, null);
    }
    send(405, { message: '405 Method Not Allowed' });
  }

  private postStatus(project: FakeProject, sha: string, call: Call, send: Send): void {
    const { body, grant } = call;
    const state = typeof body.state === 'string' ? body.state : '';
    if (!['pending', 'running', 'success', 'failed', 'canceled', 'skipped'].includes(state)) return send(400, { message: '400 Bad request - state does not have a valid value' });
    const name = typeof body.name === 'string' ? body.name : typeof body.context === 'string' ? body.context : 'default';
    const previous = project.statuses.filter((status) => status.sha === sha && status.name === name).at(-1);
    // GitLab refuses a transition to the state the status already has.
    if (previous?.status === state) return send(400, { message: `Cannot transition status via :${state === 'running' ? 'run' : state} from :${state}` });
    const status: FakeStatus = {
      id: newId(),
      sha,
      status: state,
      name,
      target_url: typeof body.target_url === 'string' ? body.target_url : null,
      description: typeof body.description === 'string' ? body.description : null,
      author: userJson(grant.user, this.url),
      created_at: now(),
    };
    project.statuses.push(status);
    send(201, { ...status, ref: null, allow_failure: false, started_at: null, finished_at: null, coverage: null });
  }

  private repositoryRoute(project: FakeProject, rest: string[], call: Call, send: Send): void {
    const { method, query } = call;
    if (method !== 'GET') return send(404, { error: '404 Not Found' });
    if (rest[0] === 'files' && rest[1] !== undefined && rest[2] === 'raw') {
      const ref = query.get('ref');
      if (ref === null) return send(400, { error: 'ref is missing' });
      const path = decodeURIComponent(rest[1]);
      const file = project.files.get(`${ref}:${path}`) ?? gitOutput(project.gitDir, ['show', `${ref}:${path}`]);
      return file === undefined ? send(404, NOT_FOUND('File')) : send(200, file, { 'content-type': 'text/plain; charset=utf-8' });
    }
    if (rest[0] === 'tree') {
      const ref = query.get('ref') ?? 'HEAD';
      // `-t` lists the folders too, as GitLab's recursive tree does.
      const listing = gitOutput(project.gitDir, ['ls-tree', ...(query.get('recursive') === 'true' ? ['-r', '-t'] : []), ref]);
      if (listing === undefined) return send(404, NOT_FOUND('Tree'));
      const entries = listing.toString('utf8').split('\n').filter(Boolean).map((line) => {
        const [meta, path] = line.split('\t') as [string, string];
        const [mode, type, id] = meta.split(' ') as [string, string, string];
        return { id, name: path.split('/').at(-1)!, type, path, mode };
      });
      return this.sendPage(entries, `${this.url}/api/v4/projects/${project.id}/repository/tree`, call, send);
    }
    if (rest[0] === 'archive.tar.gz') {
      const sha = query.get('sha') ?? '';
      const prefix = `${project.path.split('/').at(-1)}-${sha}-${sha}/`;
      const archive = project.archives.get(sha) ?? gitOutput(project.gitDir, ['archive', '--format=tar.gz', `--prefix=${prefix}`, sha]);
      return archive === undefined ? send(404, NOT_FOUND('Commit')) : send(200, archive, { 'content-type': 'application/x-gzip', 'content-disposition': `attachment; filename="${project.path.split('/').at(-1)}.tar.gz"` });
    }
    if (rest[0] === 'compare') {
      const from = query.get('from');
      const to = query.get('to');
      if (from === null || to === null) return send(400, { error: 'from is missing, to is missing' });
      const diffs = project.compares.get(`${from}...${to}`);
      if (diffs === undefined) return send(404, NOT_FOUND('Ref'));
      return send(200, {
        commit: { id: to, short_id: to.slice(0, 8), title: 'Head commit', created_at: now() },
        commits: [{ id: to, short_id: to.slice(0, 8), title: 'Head commit', created_at: now() }],
        diffs,
        compare_timeout: false,
        compare_same_ref: from === to,
        web_url: `${this.url}/${project.path}/-/compare/${from}...${to}`,
      });
    }
    send(404, { error: '404 Not Found' });
  }

  private mergeRequestJson(project: FakeProject, mergeRequest: FakeMergeRequest) {
    return {
      id: mergeRequest.id,
      iid: mergeRequest.iid,
      project_id: project.id,
      title: mergeRequest.title,
      description: mergeRequest.description,
      state: mergeRequest.state,
      draft: mergeRequest.draft,
      work_in_progress: mergeRequest.draft,
      source_branch: mergeRequest.source_branch,
      target_branch: mergeRequest.target_branch,
      source_project_id: project.id,
      target_project_id: project.id,
      author: userJson(mergeRequest.author, this.url),
      sha: mergeRequest.diffRefs.head_sha,
      diff_refs: mergeRequest.diffRefs,
      web_url: `${this.url}/${project.path}/-/merge_requests/${mergeRequest.iid}`,
      created_at: '2024-01-01T00:00:00.000Z',
      updated_at: now(),
    };
  }

  /** GitLab's offset pagination of a merge request's diffs. */
  private pagedDiffs(project: FakeProject, mergeRequest: FakeMergeRequest, call: Call, send: Send): void {
    this.sendPage(mergeRequest.diffs, `${this.url}/api/v4/projects/${project.id}/merge_requests/${mergeRequest.iid}/diffs`, call, send);
  }

  /** GitLab's offset pagination: `page`/`per_page` (at most 100), `X-*` headers and a `Link` header. */
  private sendPage(items: unknown[], base: string, call: Call, send: Send): void {
    const perPage = Math.min(Math.max(Number(call.query.get('per_page') ?? 20) || 20, 1), 100);
    const page = Math.max(Number(call.query.get('page') ?? 1) || 1, 1);
    const total = items.length;
    const totalPages = Math.max(Math.ceil(total / perPage), 1);
    const link = (target: number) => {
      const query = new URLSearchParams(call.query);
      query.set('page', String(target));
      query.set('per_page', String(perPage));
      return `<${base}?${query.toString()}>`;
    };
    const links = [...(page < totalPages ? [`${link(page + 1)}; rel="next"`] : []), `${link(1)}; rel="first"`, `${link(totalPages)}; rel="last"`];
    send(200, items.slice((page - 1) * perPage, page * perPage), {
      'x-page': String(page),
      'x-per-page': String(perPage),
      'x-next-page': page < totalPages ? String(page + 1) : '',
      'x-prev-page': page > 1 ? String(page - 1) : '',
      'x-total': String(total),
      'x-total-pages': String(totalPages),
      link: links.join(', '),
    });
  }

  private discussionJson(discussion: FakeDiscussion) {
    return { id: discussion.id, individual_note: discussion.individual_note, notes: discussion.notes.map(({ edits: _edits, ...note }) => note) };
  }

  private discussionsRoute(mergeRequest: FakeMergeRequest, id: string | undefined, leaf: string | undefined, leafId: string | undefined, call: Call, send: Send): void {
    const { method, body, grant, query } = call;
    if (id === undefined && method === 'GET') return send(200, mergeRequest.discussions.map((discussion) => this.discussionJson(discussion)));
    if (id === undefined && method === 'POST') {
      if (typeof body.body !== 'string' || body.body.length === 0) return send(400, { error: 'body is missing' });
      let position: Record<string, unknown> | undefined;
      if (body.position !== undefined) {
        position = this.placePosition(mergeRequest, body.position as Record<string, unknown>);
        if (position === undefined) return send(400, REFUSED_POSITION);
      }
      const note = this.note(mergeRequest, body.body, grant.user, position === undefined ? 'DiscussionNote' : 'DiffNote', position);
      const discussion = { id: sha1(`discussion-${note.id}`), individual_note: false, notes: [note] };
      mergeRequest.discussions.push(discussion);
      return send(201, this.discussionJson(discussion));
    }
    const discussion = mergeRequest.discussions.find((candidate) => candidate.id === id);
    if (discussion === undefined) return send(404, NOT_FOUND('Discussion'));
    if (leaf === undefined && method === 'GET') return send(200, this.discussionJson(discussion));
    if (leaf === undefined && method === 'PUT') {
      const resolved = query.get('resolved') ?? body.resolved;
      if (resolved === undefined || resolved === null) return send(400, { error: 'resolved is missing' });
      if (!discussion.notes.some((note) => note.resolvable)) return send(422, { message: 'Discussion is not resolvable' });
      for (const note of discussion.notes) {
        note.resolved = truthy(resolved);
        note.resolved_by = note.resolved ? userJson(grant.user, this.url) : null;
      }
      return send(200, this.discussionJson(discussion));
    }
    if (leaf === 'notes' && leafId === undefined && method === 'POST') {
      if (typeof body.body !== 'string' || body.body.length === 0) return send(400, { error: 'body is missing' });
      const first = discussion.notes[0]!;
      const note = this.note(mergeRequest, body.body, grant.user, first.type === null ? 'DiscussionNote' : first.type, first.position);
      discussion.notes.push(note);
      discussion.individual_note = false;
      const { edits: _edits, ...answer } = note;
      return send(201, answer);
    }
    send(404, { error: '404 Not Found' });
  }

  /**
   * GitLab's check of a diff note's position: the SHAs are the merge request's `diff_refs`, the
   * file is in its diff, and the line exists there: `new_line` alone for an added line, `old_line`
   * alone for a removed one, both for an unchanged one. A `line_range` must name line codes of that
   * file's diff, start before end. Anything else: no line code, GitLab's 400.
   */
  private placePosition(mergeRequest: FakeMergeRequest, position: Record<string, unknown>): Record<string, unknown> | undefined {
    const refs = mergeRequest.diffRefs;
    if (position.position_type !== 'text') return undefined;
    if (position.base_sha !== refs.base_sha || position.start_sha !== refs.start_sha || position.head_sha !== refs.head_sha) return undefined;
    const entry = mergeRequest.diffs.find((candidate) => candidate.new_path === position.new_path && candidate.old_path === (position.old_path ?? position.new_path));
    if (entry === undefined) return undefined;
    const lines = diffLines(entry);
    const oldLine = numeric(position.old_line);
    const newLine = numeric(position.new_line);
    const line = lines.find((candidate) => candidate.old === oldLine && candidate.new === newLine);
    if (line === undefined) return undefined;
    const range = position.line_range as { start?: Record<string, unknown>; end?: Record<string, unknown> } | undefined;
    let lineRange: Record<string, unknown> | null = null;
    if (range !== undefined) {
      const start = lines.findIndex((candidate) => candidate.code === range.start?.line_code);
      const end = lines.findIndex((candidate) => candidate.code === range.end?.line_code);
      if (start === -1 || end === -1 || start > end || lines[end] !== line) return undefined;
      const point = (index: number) => ({ line_code: lines[index]!.code, type: lines[index]!.kind === '+' ? 'new' : lines[index]!.kind === '-' ? 'old' : null, old_line: lines[index]!.old, new_line: lines[index]!.new });
      lineRange = { start: point(start), end: point(end) };
    }
    return {
      base_sha: refs.base_sha,
      start_sha: refs.start_sha,
      head_sha: refs.head_sha,
      old_path: entry.old_path,
      new_path: entry.new_path,
      position_type: 'text',
      old_line: oldLine,
      new_line: newLine,
      line_range: lineRange,
    };
  }

  private notesRoute(mergeRequest: FakeMergeRequest, id: string | undefined, leaf: string | undefined, leafId: string | undefined, tail: string | undefined, call: Call, send: Send): void {
    const { method, body, grant } = call;
    const notes = () => mergeRequest.discussions.flatMap((discussion) => discussion.notes);
    if (id === undefined && method === 'GET') return send(200, notes().map(({ edits: _edits, ...note }) => note));
    if (id === undefined && method === 'POST') {
      if (typeof body.body !== 'string' || body.body.length === 0) return send(400, { error: 'body is missing' });
      const note = this.note(mergeRequest, body.body, grant.user, null);
      mergeRequest.discussions.push({ id: sha1(`discussion-${note.id}`), individual_note: true, notes: [note] });
      const { edits: _edits, ...answer } = note;
      return send(201, answer);
    }
    const note = notes().find((candidate) => candidate.id === Number(id));
    if (note === undefined) return send(404, NOT_FOUND('Note'));
    if (leaf === undefined && method === 'GET') {
      const { edits: _edits, ...answer } = note;
      return send(200, answer);
    }
    if (leaf === undefined && method === 'PUT') {
      if (note.author.id !== grant.user.id) return send(403, { message: '403 Forbidden' });
      if (typeof body.body !== 'string' || body.body.length === 0) return send(400, { error: 'body is missing' });
      note.body = body.body;
      note.updated_at = now();
      note.edits++;
      const { edits: _edits, ...answer } = note;
      return send(200, answer);
    }
    if (leaf === 'award_emoji' && tail === undefined) {
      const awards = mergeRequest.awards.filter((award) => award.noteId === note.id);
      const awardJson = (award: (typeof awards)[number]) => ({ id: award.id, name: award.name, user: userJson(award.user, this.url), created_at: now(), updated_at: now(), awardable_id: note.id, awardable_type: 'Note' });
      if (leafId === undefined && method === 'GET') return send(200, awards.map(awardJson));
      if (leafId === undefined && method === 'POST') {
        if (typeof body.name !== 'string' || body.name.length === 0) return send(400, { error: 'name is missing' });
        // GitLab's answer to the same emoji twice by the same user.
        if (awards.some((award) => award.name === body.name && award.user.id === grant.user.id)) return send(404, { message: '404 Award Emoji Name has already been taken Not Found' });
        const award = { id: newId(), name: body.name, user: grant.user, noteId: note.id };
        mergeRequest.awards.push(award);
        return send(201, awardJson(award));
      }
    }
    send(404, { error: '404 Not Found' });
  }
}
