import { createPublicKey, generateKeyPairSync, verify, type KeyObject } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { FakeAppManifestFlow } from './fake-app-manifest.js';
import { FakeGitHub, type FakeSend } from './fake-github.js';

/** A throwaway App key, PKCS#1 PEM as GitHub hands it out. */
export function generateAppKey(): { privateKey: string; publicKey: KeyObject } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs1', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
  return { privateKey, publicKey: createPublicKey(publicKey) };
}

export interface FakeUser {
  login: string;
  id: number;
  type: 'User' | 'Bot';
}

export interface FakeReviewComment {
  id: number;
  node_id: string;
  pull_request_review_id: number;
  path: string;
  line: number;
  start_line: number | null;
  side: string;
  start_side: string | null;
  body: string;
  in_reply_to_id?: number;
  commit_id: string;
  user: FakeUser;
  html_url: string;
}

export interface FakeReview {
  id: number;
  state: 'PENDING' | 'COMMENTED';
  body: string;
  commit_id: string;
  html_url: string;
  /** When it was submitted (ms since the epoch): the moment its inline comments became visible. */
  submittedAtMs: number;
  comments: FakeReviewComment[];
}

export interface FakeCheckRun {
  id: number;
  name: string;
  head_sha: string;
  status: string;
  conclusion: string | null;
  details_url: string | null;
  output: { title?: string; summary?: string };
  html_url: string;
  app: { id: number; slug: string };
  /** The repository it belongs to (check runs are per repository on GitHub). */
  repository: string;
}

export interface FakeIssueComment {
  id: number;
  body: string;
  user: FakeUser;
  html_url: string;
  /** How many times it was edited. */
  edits: number;
}

interface PullState {
  headSha: string;
  reviews: FakeReview[];
  /** Thread per top-level inline comment: its id and whether it is resolved. */
  threads: Array<{ id: string; rootId: number; resolved: boolean }>;
  issueComments: FakeIssueComment[];
  reactions: Array<{ commentId: number; content: string; user: FakeUser }>;
}

interface Installation {
  repositories: Set<string>;
}

let nextId = 5_000_000;
const newId = () => nextId++;

/**
 * GitHub as a GitHub App sees it, on top of the plain fake: the token exchange checks the App's JWT
 * (RS256 signature with the App's public key, `iss`, `iat`, `exp` at most ten minutes ahead); every
 * call for an installed repository needs a live installation token of that installation; inline
 * comments are checked against the pull request's diff (GitHub's 422 otherwise); GraphQL lists and
 * resolves review threads. Knobs reproduce what GitHub does on a bad day.
 */
export class FakeGitHubApp extends FakeGitHub {
  readonly appId = str(300_000 + Math.floor(Math.random() * 100_000));
  readonly slug = `review-bot-${Math.random().toString(36).slice(2, 8)}`;
  readonly key = generateAppKey();
  private readonly installations = new Map<number, Installation>();
  private readonly installationTokens = new Map<string, { installationId: number; expiresAt: number }>();
  private readonly pulls = new Map<string, PullState>();
  readonly checkRuns: FakeCheckRun[] = [];
  /** Lines GitHub refuses to place a comment on (`path:line`), as when the diff moved on. */
  readonly refusedLines = new Set<string>();
  /** The next `remaining` repository calls whose `METHOD path` matches answer a secondary rate limit (403 with `retry-after`). */
  rateLimit = { remaining: 0, pattern: /./, retryAfterSeconds: 1 };
  /** When each rate-limited call and each review creation happened (ms). */
  readonly rateLimitedAt: number[] = [];
  readonly reviewsCreatedAt: number[] = [];
  /** GraphQL `resolveReviewThread` fails (the App may lack the permission). */
  failResolve = false;
  /** Token exchanges that were refused, with why. */
  readonly refusedJwts: string[] = [];
  tokenLifetimeMs = 60 * 60_000;
  /** GitHub's manifest flow, which hands out this App (`appId`, `slug`, `key`), and the App's user tokens. */
  readonly manifests = new FakeAppManifestFlow(() => ({ appId: this.appId, slug: this.slug, privateKey: this.key.privateKey, url: this.url }), { codes: this.codes, tokens: this.tokens });

  get bot(): FakeUser {
    return { login: `${this.slug}[bot]`, id: 41_000_000, type: 'Bot' };
  }

  env(): Record<string, string> {
    return { GITHUB_APP_ID: this.appId, GITHUB_APP_PRIVATE_KEY: this.key.privateKey.replaceAll('\n', '\\n'), GITHUB_APP_SLUG: this.slug };
  }

  install(installationId: number, repositories: string[]): void {
    this.installations.set(installationId, { repositories: new Set(repositories) });
  }

  uninstall(installationId: number): void {
    this.installations.delete(installationId);
  }

  /** Opens (or moves the head of) a pull request and serves its diff. */
  openPull(fullName: string, number: number, headSha: string, diff: string): void {
    this.setDiff(fullName, number, diff);
    const pull = this.pull(fullName, number);
    pull.headSha = headSha;
  }

  pull(fullName: string, number: number): PullState {
    const key = `${fullName}#${number}`;
    let pull = this.pulls.get(key);
    if (pull === undefined) {
      pull = { headSha: '', reviews: [], threads: [], issueComments: [], reactions: [] };
      this.pulls.set(key, pull);
    }
    return pull;
  }

  /** The submitted reviews and their inline comments (pending ones are not visible on GitHub). */
  submittedReviews(fullName: string, number: number): FakeReview[] {
    return this.pull(fullName, number).reviews.filter((review) => review.state !== 'PENDING');
  }

  inlineComments(fullName: string, number: number): FakeReviewComment[] {
    return this.submittedReviews(fullName, number).flatMap((review) => review.comments);
  }

  /** A person's comment (for the tests' commands). */
  addIssueComment(fullName: string, number: number, body: string, user: FakeUser): FakeIssueComment {
    const comment = { id: newId(), body, user, html_url: `${this.url}/${fullName}/pull/${number}#issuecomment-${nextId}`, edits: 0 };
    this.pull(fullName, number).issueComments.push(comment);
    return comment;
  }

  protected override async route(request: IncomingMessage, url: URL, body: string, send: FakeSend): Promise<boolean> {
    const method = request.method ?? 'GET';
    const path = url.pathname;
    if (this.manifests.route(request, url, body, send)) return true;
    const tokenExchange = /^\/app\/installations\/(\d+)\/access_tokens$/.exec(path);
    if (tokenExchange && method === 'POST') {
      const refusal = this.checkJwt(request.headers.authorization);
      if (refusal !== undefined) {
        this.refusedJwts.push(refusal);
        send(401, { message: refusal });
        return true;
      }
      const installationId = Number(tokenExchange[1]);
      if (!this.installations.has(installationId)) {
        send(404, { message: 'Not Found' });
        return true;
      }
      const token = `ghs_${installationId}_${Math.random().toString(36).slice(2)}`;
      const expiresAt = Date.now() + this.tokenLifetimeMs;
      this.installationTokens.set(token, { installationId, expiresAt });
      send(201, { token, expires_at: new Date(expiresAt).toISOString(), permissions: { pull_requests: 'write', checks: 'write', contents: 'read', issues: 'write', metadata: 'read' }, repository_selection: 'selected' });
      return true;
    }

    if (path === '/graphql' && method === 'POST') return this.graphql(request, body, send);

    const repo = /^\/repos\/([^/]+\/[^/]+)(\/.*)?$/.exec(path);
    if (repo === null) return false;
    const fullName = repo[1]!;
    const owning = [...this.installations.entries()].find(([, installation]) => installation.repositories.has(fullName));
    if (owning === undefined) return false; // a repository the App is not installed on: the plain fake answers
    const token = this.liveToken(request.headers.authorization);
    if (token === undefined || token.installationId !== owning[0]) {
      send(401, { message: 'Bad credentials' });
      return true;
    }
    if (this.rateLimit.remaining > 0 && this.rateLimit.pattern.test(`${method} ${path}`)) {
      this.rateLimit.remaining--;
      this.rateLimitedAt.push(Date.now());
      send(403, { message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.' }, 'application/json', { 'retry-after': str(this.rateLimit.retryAfterSeconds) });
      return true;
    }
    return this.repositoryCall(method, fullName, repo[2] ?? '', url, body, send);
  }

  private repositoryCall(method: string, fullName: string, rest: string, url: URL, body: string, send: FakeSend): boolean {
    const json = () => JSON.parse(body || '{}') as Record<string, unknown>;
    let match: RegExpExecArray | null;

    if ((match = /^\/commits\/([^/]+)\/check-runs$/.exec(rest)) && method === 'GET') {
      const name = url.searchParams.get('check_name');
      const runs = this.checkRuns.filter((run) => run.repository === fullName && run.head_sha === match![1] && (name === null || run.name === name));
      send(200, { total_count: runs.length, check_runs: runs });
      return true;
    }
    if (rest === '/check-runs' && method === 'POST') {
      const input = json();
      const id = newId();
      const run: FakeCheckRun = {
        id,
        name: str(input.name),
        head_sha: str(input.head_sha),
        status: str(input.status ?? 'queued'),
        conclusion: (input.conclusion as string | undefined) ?? null,
        details_url: (input.details_url as string | undefined) ?? null,
        output: (input.output as FakeCheckRun['output'] | undefined) ?? {},
        html_url: `${this.url}/${fullName}/runs/${id}`,
        app: { id: Number(this.appId), slug: this.slug },
        repository: fullName,
      };
      this.checkRuns.push(run);
      send(201, run);
      return true;
    }
    if ((match = /^\/check-runs\/(\d+)$/.exec(rest)) && method === 'PATCH') {
      const run = this.checkRuns.find((candidate) => candidate.repository === fullName && candidate.id === Number(match![1]));
      if (run === undefined) return notFound(send);
      const input = json();
      if (input.status !== undefined) run.status = str(input.status);
      if (input.conclusion !== undefined) run.conclusion = str(input.conclusion);
      if (input.details_url !== undefined) run.details_url = str(input.details_url);
      if (input.output !== undefined) run.output = input.output as FakeCheckRun['output'];
      send(200, run);
      return true;
    }

    if ((match = /^\/pulls\/(\d+)\/comments$/.exec(rest)) && method === 'GET') {
      send(200, this.inlineComments(fullName, Number(match[1])));
      return true;
    }
    if ((match = /^\/pulls\/(\d+)\/reviews$/.exec(rest)) && method === 'POST') return this.createReview(fullName, Number(match[1]), json(), send);
    if ((match = /^\/pulls\/(\d+)\/reviews\/(\d+)$/.exec(rest)) && method === 'DELETE') {
      const pull = this.pull(fullName, Number(match[1]));
      const review = pull.reviews.find((candidate) => candidate.id === Number(match![2]));
      if (review === undefined) return notFound(send);
      if (review.state !== 'PENDING') {
        send(422, { message: 'Can not delete a non-pending pull request review' });
        return true;
      }
      pull.reviews.splice(pull.reviews.indexOf(review), 1);
      send(200, { id: review.id, state: 'PENDING' });
      return true;
    }
    if ((match = /^\/pulls\/(\d+)\/reviews\/(\d+)\/comments$/.exec(rest)) && method === 'GET') {
      const review = this.pull(fullName, Number(match[1])).reviews.find((candidate) => candidate.id === Number(match![2]));
      if (review === undefined) return notFound(send);
      send(200, review.comments);
      return true;
    }
    if ((match = /^\/pulls\/(\d+)\/comments\/(\d+)\/replies$/.exec(rest)) && method === 'POST') {
      const number = Number(match[1]);
      const parent = this.inlineComments(fullName, number).find((comment) => comment.id === Number(match![2]));
      if (parent === undefined) return notFound(send);
      const reply: FakeReviewComment = { ...parent, id: newId(), node_id: `RC_${nextId}`, body: str(json().body), in_reply_to_id: parent.id, user: this.bot, html_url: `${this.url}/${fullName}/pull/${number}#discussion_r${nextId}` };
      this.submittedReviews(fullName, number).find((review) => review.comments.includes(parent))!.comments.push(reply);
      send(201, reply);
      return true;
    }

    if ((match = /^\/issues\/(\d+)\/comments$/.exec(rest))) {
      const pull = this.pull(fullName, Number(match[1]));
      if (method === 'GET') {
        send(200, pull.issueComments);
        return true;
      }
      if (method === 'POST') {
        if (refusedAsTooLong(str(json().body), send)) return true;
        const comment = { id: newId(), body: str(json().body), user: this.bot, html_url: `${this.url}/${fullName}/pull/${match[1]}#issuecomment-${nextId}`, edits: 0 };
        pull.issueComments.push(comment);
        send(201, comment);
        return true;
      }
    }
    if ((match = /^\/issues\/comments\/(\d+)$/.exec(rest)) && method === 'PATCH') {
      const comment = [...this.pullsOf(fullName)].flatMap((pull) => pull.issueComments).find((candidate) => candidate.id === Number(match![1]));
      if (comment === undefined) return notFound(send);
      if (comment.user.login !== this.bot.login) {
        send(403, { message: 'Resource not accessible by integration' });
        return true;
      }
      if (refusedAsTooLong(str(json().body), send)) return true;
      comment.body = str(json().body);
      comment.edits++;
      send(200, comment);
      return true;
    }
    if ((match = /^\/issues\/comments\/(\d+)\/reactions$/.exec(rest)) && method === 'POST') {
      const commentId = Number(match[1]);
      const pull = [...this.pullsOf(fullName)].find((candidate) => candidate.issueComments.some((comment) => comment.id === commentId));
      if (pull === undefined) return notFound(send);
      const content = str(json().content);
      const existing = pull.reactions.find((reaction) => reaction.commentId === commentId && reaction.content === content);
      if (existing === undefined) pull.reactions.push({ commentId, content, user: this.bot });
      send(existing === undefined ? 201 : 200, { id: newId(), content, user: this.bot });
      return true;
    }
    return false;
  }

  private *pullsOf(fullName: string): Iterable<PullState> {
    for (const [key, pull] of this.pulls) if (key.startsWith(`${fullName}#`)) yield pull;
  }

  /** GitHub's rules for a review's inline comments: each line (and start line) on the RIGHT side of the diff, in one hunk. */
  private createReview(fullName: string, number: number, input: Record<string, unknown>, send: FakeSend): boolean {
    const diff = this.diffs.get(`${fullName}#${number}`);
    if (diff === undefined) return notFound(send);
    const pull = this.pull(fullName, number);
    const lines = rightSideLines(diff);
    const comments = (input.comments as Array<Record<string, unknown>> | undefined) ?? [];
    for (const comment of comments) {
      const path = str(comment.path);
      const line = Number(comment.line);
      const start = comment.start_line === undefined ? line : Number(comment.start_line);
      const hunkOf = lines.get(path);
      const placeable = hunkOf !== undefined && hunkOf.has(line) && hunkOf.has(start) && hunkOf.get(line) === hunkOf.get(start) && start <= line && comment.side === 'RIGHT' && !this.refusedLines.has(`${path}:${line}`);
      if (!placeable) {
        send(422, { message: 'Unprocessable Entity', errors: ['Pull request review thread line must be part of the diff'], documentation_url: 'https://docs.github.com/rest/pulls/reviews#create-a-review-for-a-pull-request' });
        return true;
      }
    }
    if (input.event === undefined && pull.reviews.some((review) => review.state === 'PENDING')) {
      send(422, { message: 'Unprocessable Entity', errors: ['User can only have one pending review per pull request'] });
      return true;
    }
    const reviewId = newId();
    const review: FakeReview = {
      id: reviewId,
      state: input.event === undefined ? 'PENDING' : 'COMMENTED',
      body: str(input.body ?? ''),
      commit_id: str(input.commit_id ?? pull.headSha),
      html_url: `${this.url}/${fullName}/pull/${number}#pullrequestreview-${reviewId}`,
      submittedAtMs: Date.now(),
      comments: comments.map((comment) => {
        const id = newId();
        return {
          id,
          node_id: `PRRC_${id}`,
          pull_request_review_id: reviewId,
          path: str(comment.path),
          line: Number(comment.line),
          start_line: comment.start_line === undefined ? null : Number(comment.start_line),
          side: str(comment.side),
          start_side: comment.start_side === undefined ? null : str(comment.start_side),
          body: str(comment.body),
          commit_id: str(input.commit_id ?? pull.headSha),
          user: this.bot,
          html_url: `${this.url}/${fullName}/pull/${number}#discussion_r${id}`,
        };
      }),
    };
    pull.reviews.push(review);
    if (review.state !== 'PENDING') this.reviewsCreatedAt.push(Date.now());
    if (review.state !== 'PENDING') for (const comment of review.comments) pull.threads.push({ id: `PRRT_${comment.id}`, rootId: comment.id, resolved: false });
    send(200, { id: reviewId, state: review.state, body: review.body, commit_id: review.commit_id, html_url: review.html_url, user: this.bot });
    return true;
  }

  private graphql(request: IncomingMessage, body: string, send: FakeSend): boolean {
    const token = this.liveToken(request.headers.authorization);
    if (token === undefined) {
      send(401, { message: 'Bad credentials' });
      return true;
    }
    const { query, variables } = JSON.parse(body) as { query: string; variables: Record<string, unknown> };
    if (query.includes('resolveReviewThread')) {
      const thread = [...this.pulls.values()].flatMap((pull) => pull.threads).find((candidate) => candidate.id === variables.threadId);
      if (this.failResolve || thread === undefined) {
        send(200, { data: null, errors: [{ type: 'FORBIDDEN', message: 'Resource not accessible by integration' }] });
        return true;
      }
      thread.resolved = true;
      send(200, { data: { resolveReviewThread: { thread: { id: thread.id, isResolved: true } } } });
      return true;
    }
    if (query.includes('reviewThreads')) {
      const fullName = `${str(variables.owner)}/${str(variables.name)}`;
      const pull = this.pull(fullName, Number(variables.number));
      const comments = this.inlineComments(fullName, Number(variables.number));
      const nodes = pull.threads.map((thread) => ({
        id: thread.id,
        isResolved: thread.resolved,
        comments: { nodes: comments.filter((comment) => comment.id === thread.rootId || comment.in_reply_to_id === thread.rootId).map((comment) => ({ databaseId: comment.id, body: comment.body })) },
      }));
      send(200, { data: { repository: { pullRequest: { reviewThreads: { pageInfo: { hasNextPage: false, endCursor: null }, nodes } } } } });
      return true;
    }
    send(200, { data: null, errors: [{ message: 'This fake does not know that query' }] });
    return true;
  }

  /** Thread resolution state of an inline comment's thread. */
  threadOf(fullName: string, number: number, rootId: number) {
    return this.pull(fullName, number).threads.find((thread) => thread.rootId === rootId);
  }

  private liveToken(header: string | undefined) {
    const token = (header ?? '').replace(/^(Bearer|token) /i, '');
    const entry = this.installationTokens.get(token);
    return entry !== undefined && entry.expiresAt > Date.now() ? entry : undefined;
  }

  /** Why GitHub would refuse this JWT, or undefined when it is good. */
  private checkJwt(header: string | undefined): string | undefined {
    const jwt = /^bearer (.+)$/i.exec(header ?? '')?.[1];
    if (jwt === undefined) return 'A JSON web token could not be decoded';
    const [head, payload, signature] = jwt.split('.');
    if (head === undefined || payload === undefined || signature === undefined) return 'A JSON web token could not be decoded';
    const header_ = JSON.parse(Buffer.from(head, 'base64url').toString()) as { alg?: string };
    if (header_.alg !== 'RS256') return `'${header_.alg}' is not a supported algorithm`;
    if (!verify('RSA-SHA256', Buffer.from(`${head}.${payload}`), this.key.publicKey, Buffer.from(signature, 'base64url'))) return 'A JSON web token could not be decoded (signature)';
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as { iss?: string | number; iat?: number; exp?: number };
    const now = Math.floor(Date.now() / 1000);
    if (str(claims.iss) !== this.appId) return "'Issuer' claim ('iss') must be the App's id";
    if (typeof claims.exp !== 'number' || claims.exp <= now) return "'Expiration time' claim ('exp') must be in the future";
    if (typeof claims.iat !== 'number' || claims.iat > now + 60) return "'Issued at' claim ('iat') must be an Integer representing a time in the past";
    if (claims.exp - claims.iat > 600) return "'Expiration time' claim ('exp') is too far in the future";
    return undefined;
  }
}

/** A JSON field as text (what GitHub would store). */
function str(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return `${value}`;
  return value === undefined || value === null ? '' : JSON.stringify(value);
}

function notFound(send: FakeSend): true {
  send(404, { message: 'Not Found' });
  return true;
}

/** Per file, each new-file line the diff shows, with the hunk it is in. */
function rightSideLines(diff: string): Map<string, Map<number, number>> {
  const files = new Map<string, Map<number, number>>();
  let current: Map<number, number> | undefined;
  let line = 0;
  let hunk = 0;
  for (const text of diff.split('\n')) {
    if (text.startsWith('+++ ')) {
      const path = text.slice(4).replace(/^b\//, '');
      current = new Map();
      files.set(path, current);
      continue;
    }
    const header = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(text);
    if (header) {
      line = Number(header[1]);
      hunk++;
      continue;
    }
    if (current === undefined || text.startsWith('---') || text.startsWith('diff ') || text.startsWith('index ')) continue;
    if (text.startsWith('+') || text.startsWith(' ')) current.set(line++, hunk);
  }
  return files;
}

/** GitHub's answer to an issue comment over its 65,536-character limit. */
function refusedAsTooLong(body: string, send: FakeSend): boolean {
  if (body.length <= 65_536) return false;
  send(422, { message: 'Validation Failed', errors: [{ resource: 'IssueComment', code: 'custom', field: 'body', message: 'body is too long (maximum is 65536 characters)' }], documentation_url: 'https://docs.github.com/rest/issues/comments#create-an-issue-comment' });
  return true;
}
