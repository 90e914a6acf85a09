import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bitbucketUser, FakeBitbucket } from '../fakes/fake-bitbucket.js';
import { closeServer, listenOnLoopback } from '../helpers/net.js';

const REPO = 'acme/widgets';
const HEAD = 'c'.repeat(40);
const BASE = 'b'.repeat(40);
const DIFF = [
  'diff --git a/src/a.ts b/src/a.ts',
  'index 1111111..2222222 100644',
  '--- a/src/a.ts',
  '+++ b/src/a.ts',
  '@@ -1,2 +1,4 @@',
  ' const a = 1;',
  '+const b = 2;',
  '+const c = 3;',
  '-export { a };',
  '+export { a, b, c };',
  ...[1, 2, 3].flatMap((n) => [`diff --git a/docs/${n}.md b/docs/${n}.md`, 'new file mode 100644', 'index 0000000..3333333', '--- /dev/null', `+++ b/docs/${n}.md`, '@@ -0,0 +1 @@', `+page ${n}`]),
  '',
].join('\n');

/**
 * The npm client `bitbucket` ships its types as `.ts` sources in a CommonJS package, which this
 * project's `verbatimModuleSyntax` refuses to compile (TS1287): its runtime is loaded, and the few
 * calls the test makes are typed here.
 */
interface Answer<T> {
  data: T;
  url: string;
  status: number;
}
type Endpoint = <T = Record<string, unknown>>(params: Record<string, unknown>) => Promise<Answer<T>>;
type Namespace<Names extends string> = Record<Names, Endpoint>;
interface BitbucketClient {
  hasNextPage(page: unknown): boolean;
  getNextPage<T>(page: unknown): Promise<Answer<T>>;
  commits: Namespace<'get' | 'getDiff'>;
  commitstatuses: Namespace<'createBuildStatus' | 'getBuildStatus'>;
  pullrequests: Namespace<'get' | 'getDiff' | 'getDiffStat' | 'createComment' | 'updateComment' | 'resolveComment' | 'listComments'>;
  repositories: Namespace<'get' | 'createWebhook' | 'listWebhooks' | 'deleteWebhook'>;
  source: Namespace<'read'>;
  user: Namespace<'get'>;
  workspaces: Namespace<'listPermissionsForRepository'>;
}
const { Bitbucket } = createRequire(import.meta.url)('bitbucket') as {
  Bitbucket: new (options: { baseUrl: string; auth: { token: string } | { username: string; password: string }; notice: boolean }) => BitbucketClient;
};

type Comment = { id: number; content: { raw: string } };
type Page<T> = { values: T[]; next?: string; size: number; pagelen: number; page: number };

type ClientError = { status?: number; error?: { type?: string; error?: { message?: string } } };
const status = (promise: Promise<unknown>) =>
  promise.then(
    () => 'resolved',
    (error: ClientError) => error.status,
  );

/**
 * The fake speaks Bitbucket Cloud REST 2.0: the npm client `bitbucket`, generated from Bitbucket's
 * own OpenAPI document, works against it unchanged (its paths, parameters, paging and auth).
 */
describe('the fake Bitbucket Cloud', () => {
  let bitbucket: FakeBitbucket;
  const admin = bitbucketUser('Ada Admin');
  const writer = bitbucketUser('Wes Writer');
  const reader = bitbucketUser('Rita Reader');
  let asAdmin: BitbucketClient;
  let asToken: BitbucketClient;
  let tokenUser: ReturnType<typeof bitbucketUser>;
  const client = (auth: { token: string } | { username: string; password: string }) => new Bitbucket({ baseUrl: bitbucket.apiUrl, auth, notice: false });

  beforeAll(async () => {
    bitbucket = await new FakeBitbucket().start();
    bitbucket.addRepository(REPO);
    bitbucket.setPermission(REPO, admin, 'admin');
    bitbucket.setPermission(REPO, writer, 'write');
    bitbucket.setPermission(REPO, reader, 'read');
    bitbucket.openPullRequest(REPO, 7, { author: writer, source: HEAD, destination: BASE, diff: DIFF, title: 'Add b and c' });
    const apiToken = bitbucket.issueApiToken(admin, 'ada@example.com');
    asAdmin = client({ username: apiToken.email, password: apiToken.token });
    const accessToken = bitbucket.issueAccessToken(REPO);
    tokenUser = accessToken.user;
    asToken = client({ token: accessToken.token });
  });
  afterAll(() => bitbucket.stop());

  it('gets the repository, the pull request with 12-character hashes, and a commit by its short hash', async () => {
    const { data: repository } = await asToken.repositories.get({ workspace: 'acme', repo_slug: 'widgets' });
    expect(repository).toMatchObject({ full_name: REPO, uuid: expect.stringMatching(/^\{[0-9a-f-]{36}\}$/), links: { html: { href: `${bitbucket.url}/${REPO}` } } });
    const { data: pullRequest } = await asToken.pullrequests.get({ workspace: 'acme', repo_slug: 'widgets', pull_request_id: 7 });
    expect(pullRequest).toMatchObject({ id: 7, state: 'OPEN', source: { commit: { hash: HEAD.slice(0, 12) } }, destination: { commit: { hash: BASE.slice(0, 12) } } });
    const { data: commit } = await asToken.commits.get<{ hash: string }>({ workspace: 'acme', repo_slug: 'widgets', commit: HEAD.slice(0, 12) });
    expect(commit.hash).toBe(HEAD);
  });

  it('pages the diffstat (after its redirect) with pagelen/next/values, which the client follows', async () => {
    type Entry = { status: string; new: { path: string } };
    const { data: page } = await asToken.pullrequests.getDiffStat<Page<Entry>>({ workspace: 'acme', repo_slug: 'widgets', pull_request_id: 7, pagelen: 2 });
    expect(page.values.map((entry) => [entry.status, entry.new.path])).toEqual([['modified', 'src/a.ts'], ['added', 'docs/1.md']]);
    expect(page).toMatchObject({ size: 4, next: expect.stringContaining('page=2') });
    expect(asToken.hasNextPage(page)).toBe(true);
    const { data: second } = await asToken.getNextPage<Page<Entry>>(page);
    expect(second.values.map((entry) => entry.new.path)).toEqual(['docs/2.md', 'docs/3.md']);
    expect(asToken.hasNextPage(second)).toBe(false);
    expect(page.values[0]).toMatchObject({ type: 'diffstat', lines_added: 3, lines_removed: 1 });
  });

  it('answers the diff after a redirect to /diff/{spec}, and the diff of two commits with topic=false', async () => {
    const { data: diff, url } = await asToken.pullrequests.getDiff({ workspace: 'acme', repo_slug: 'widgets', pull_request_id: 7 });
    expect(diff).toBe(DIFF);
    expect(url).toContain(`/diff/${REPO}:${HEAD.slice(0, 12)}%0D${BASE.slice(0, 12)}?from_pullrequest_id=7`);
    bitbucket.setDiff(REPO, `${HEAD}..${BASE}`, 'diff --git a/x b/x\n', { topic: false });
    const { data: pushDiff } = await asToken.commits.getDiff({ workspace: 'acme', repo_slug: 'widgets', spec: `${HEAD}..${BASE}`, topic: false });
    expect(pushDiff).toBe('diff --git a/x b/x\n');
    expect(await status(asToken.commits.getDiff({ workspace: 'acme', repo_slug: 'widgets', spec: `${HEAD}..${BASE}` }))).toBe(404);
  });

  it('reads a file through src, and a folder as a page of entries', async () => {
    bitbucket.setFile(REPO, BASE, '.ai-review.yml', 'reviews:\n  drafts: true\n');
    bitbucket.setFile(REPO, BASE, 'src/a.ts', 'const a = 1;\n');
    const { data: file } = await asToken.source.read({ workspace: 'acme', repo_slug: 'widgets', commit: BASE.slice(0, 12), path: '.ai-review.yml' });
    expect(file).toBe('reviews:\n  drafts: true\n');
    const { data: folder } = await asToken.source.read<Page<{ type: string; path: string }>>({ workspace: 'acme', repo_slug: 'widgets', commit: BASE, path: 'src/' });
    expect(folder.values).toEqual([expect.objectContaining({ type: 'commit_file', path: 'src/a.ts' })]);
    expect(await status(asToken.source.read({ workspace: 'acme', repo_slug: 'widgets', commit: BASE, path: 'missing.txt' }))).toBe(404);
  });

  it('creates inline comments on diff lines, refuses one off the diff with 400 and the error shape, edits, replies, lists and resolves', async () => {
    const target = { workspace: 'acme', repo_slug: 'widgets', pull_request_id: 7 };
    const { data: inline } = await asToken.pullrequests.createComment<Comment>({ ...target, _body: { type: 'pullrequest_comment', content: { raw: 'b and c are unused' }, inline: { path: 'src/a.ts', to: 3, start_to: 2 } } });
    expect(inline).toMatchObject({ content: { raw: 'b and c are unused' }, inline: { path: 'src/a.ts', to: 3, start_to: 2 }, user: { uuid: tokenUser.uuid, type: 'app_user' } });
    // A context line is on the new side too; a removed line is anchored with `from`.
    expect(await status(asToken.pullrequests.createComment({ ...target, _body: { content: { raw: 'context' }, inline: { path: 'src/a.ts', to: 1 } } }))).toBe('resolved');
    expect(await status(asToken.pullrequests.createComment({ ...target, _body: { content: { raw: 'removed' }, inline: { path: 'src/a.ts', from: 2 } } }))).toBe('resolved');
    const refused = await asToken.pullrequests.createComment({ ...target, _body: { content: { raw: 'far' }, inline: { path: 'src/a.ts', to: 40 } } }).catch((error: ClientError) => error);
    expect(refused).toMatchObject({ status: 400, error: { type: 'error', error: { message: expect.stringContaining('not part of the diff') } } });
    expect(await status(asToken.pullrequests.createComment({ ...target, _body: { content: { raw: 'x' }, inline: { path: 'src/a.ts', to: 2, start_to: 3 } } }))).toBe(400);
    expect(await status(asToken.pullrequests.createComment({ ...target, _body: { content: { raw: 'x' }, inline: { path: 'README.md', to: 1 } } }))).toBe(400);

    const { data: summary } = await asToken.pullrequests.createComment<Comment>({ ...target, _body: { content: { raw: 'Summary v1' } } });
    const { data: edited } = await asToken.pullrequests.updateComment<Comment>({ ...target, comment_id: summary.id, _body: { content: { raw: 'Summary v2' } } });
    expect(edited.content.raw).toBe('Summary v2');
    // Another's comment cannot be edited.
    const command = bitbucket.addComment(REPO, 7, '/review', writer);
    expect(await status(asToken.pullrequests.updateComment({ ...target, comment_id: command.id, _body: { content: { raw: 'changed' } } }))).toBe(403);

    const { data: reply } = await asToken.pullrequests.createComment<Comment>({ ...target, _body: { content: { raw: 'Addressed' }, parent: { id: inline.id } } });
    expect(reply).toMatchObject({ parent: { id: inline.id }, inline: { path: 'src/a.ts', to: 3 } });

    const { data: resolution } = await asToken.pullrequests.resolveComment({ ...target, comment_id: inline.id });
    expect(resolution).toMatchObject({ type: 'comment_resolution', user: { uuid: tokenUser.uuid } });
    expect(await status(asToken.pullrequests.resolveComment({ ...target, comment_id: inline.id }))).toBe(409);
    // A general comment and a reply cannot be resolved.
    expect(await status(asToken.pullrequests.resolveComment({ ...target, comment_id: summary.id }))).toBe(403);
    expect(await status(asToken.pullrequests.resolveComment({ ...target, comment_id: reply.id }))).toBe(403);

    const { data: listed } = await asToken.pullrequests.listComments<Page<Comment>>({ ...target, pagelen: 3 });
    expect(listed).toMatchObject({ pagelen: 3, size: 6, page: 1, next: expect.stringContaining('page=2') });
    expect(listed.values[0]!.id).toBe(inline.id);
    expect(listed.values.find((comment) => comment.id === inline.id)).toMatchObject({ resolution: { type: 'comment_resolution' } });
  });

  it('creates a build status and overwrites it by key; refuses a key over 40 characters', async () => {
    const target = { workspace: 'acme', repo_slug: 'widgets', commit: HEAD.slice(0, 12) };
    const { data: running } = await asToken.commitstatuses.createBuildStatus({ ...target, _body: { type: 'build', key: 'ai-review', state: 'INPROGRESS', name: 'AI review', url: 'https://review.example/pulls/1' } });
    expect(running).toMatchObject({ key: 'ai-review', state: 'INPROGRESS', name: 'AI review' });
    await asToken.commitstatuses.createBuildStatus({ ...target, _body: { key: 'ai-review', state: 'SUCCESSFUL', name: 'AI review', url: 'https://review.example/pulls/1', description: '0 critical, 1 major' } });
    const { data: read } = await asToken.commitstatuses.getBuildStatus({ ...target, key: 'ai-review' });
    expect(read).toMatchObject({ state: 'SUCCESSFUL', description: '0 critical, 1 major' });
    expect(bitbucket.repository(REPO).statuses).toEqual([expect.objectContaining({ key: 'ai-review', commit: HEAD, writes: 2 })]);
    const tooLong = await asToken.commitstatuses.createBuildStatus({ ...target, _body: { key: 'k'.repeat(48), state: 'SUCCESSFUL', url: 'https://x' } }).catch((error: ClientError) => error);
    expect(tooLong).toMatchObject({ status: 400, error: { error: { message: 'key: Ensure this value has at most 40 characters (it has 48).' } } });
  });

  it('creates a hook without ever showing its secret, delivers signed events to it, and deletes it', async () => {
    const received: Array<{ headers: Record<string, unknown>; body: string }> = [];
    const receiver = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        received.push({ headers: request.headers, body: Buffer.concat(chunks).toString() });
        response.writeHead(200).end();
      });
    });
    const receiverUrl = await listenOnLoopback(receiver);
    try {
      const secret = 's'.repeat(40);
      const events = ['pullrequest:created', 'pullrequest:updated', 'pullrequest:fulfilled', 'pullrequest:rejected', 'pullrequest:comment_created'];
      const { data: hook } = await asToken.repositories.createWebhook<{ uuid: string }>({ workspace: 'acme', repo_slug: 'widgets', _body: { description: 'AI review', url: `${receiverUrl}/webhook/bitbucket`, active: true, secret, events } });
      expect(hook).toMatchObject({ type: 'webhook_subscription', uuid: expect.stringMatching(/^\{.+\}$/), active: true, events, secret_set: true });
      expect(JSON.stringify(hook)).not.toContain(secret);
      const { data: hooks } = await asToken.repositories.listWebhooks({ workspace: 'acme', repo_slug: 'widgets' });
      expect(JSON.stringify(hooks)).not.toContain(secret);
      expect(await status(asToken.repositories.createWebhook({ workspace: 'acme', repo_slug: 'widgets', _body: { url: receiverUrl, events, secret: 'x'.repeat(129) } }))).toBe(400);

      const [delivery] = await bitbucket.emit(REPO, 'pullrequest:created', bitbucket.eventPayload(REPO, 7, writer));
      expect(delivery!.status).toBe(200);
      const { headers, body } = received[0]!;
      expect(headers).toMatchObject({ 'x-event-key': 'pullrequest:created', 'x-attempt-number': '1', 'x-request-uuid': delivery!.requestUuid, 'x-hook-uuid': hook.uuid.replace(/[{}]/g, ''), 'user-agent': 'Bitbucket-Webhooks/2.0' });
      expect(headers['x-hub-signature']).toBe(`sha256=${createHmac('sha256', secret).update(body).digest('hex')}`);
      expect(JSON.parse(body)).toMatchObject({ pullrequest: { id: 7, source: { commit: { hash: HEAD.slice(0, 12) } } }, repository: { full_name: REPO } });

      await asToken.repositories.deleteWebhook({ workspace: 'acme', repo_slug: 'widgets', uid: hook.uuid });
      expect(bitbucket.repository(REPO).hooks).toEqual([]);
      // An API token's account must be a repository admin to manage hooks.
      const asWriter = client({ username: 'wes@example.com', password: bitbucket.issueApiToken(writer, 'wes@example.com').token });
      expect(await status(asWriter.repositories.createWebhook({ workspace: 'acme', repo_slug: 'widgets', _body: { url: receiverUrl, events } }))).toBe(403);
    } finally {
      await closeServer(receiver);
    }
  });

  it("lists a user's effective permission for an admin's API token; refuses access tokens and non-admins with 403", async () => {
    const { data } = await asAdmin.workspaces.listPermissionsForRepository<Page<unknown>>({ workspace: 'acme', repo_slug: 'widgets', q: `user.uuid="${writer.uuid}"` });
    expect(data.values).toEqual([expect.objectContaining({ type: 'repository_permission', permission: 'write', user: expect.objectContaining({ uuid: writer.uuid }) })]);
    const { data: probe } = await asAdmin.workspaces.listPermissionsForRepository<Page<unknown>>({ workspace: 'acme', repo_slug: 'widgets', pagelen: 1 });
    expect(probe.values).toHaveLength(1);
    const refused = await asToken.workspaces.listPermissionsForRepository({ workspace: 'acme', repo_slug: 'widgets' }).catch((error: ClientError) => error);
    expect(refused).toMatchObject({ status: 403, error: { error: { message: 'This API is not accessible by this authentication mechanism' } } });
    const asReader = client({ username: 'rita@example.com', password: bitbucket.issueApiToken(reader, 'rita@example.com').token });
    expect(await status(asReader.workspaces.listPermissionsForRepository({ workspace: 'acme', repo_slug: 'widgets' }))).toBe(403);
  });

  it('answers GET /user for an API token, 403 for an access token; 401 for unknown credentials, 429 and 555 on demand', async () => {
    expect((await asAdmin.user.get({})).data).toMatchObject({ uuid: admin.uuid, display_name: 'Ada Admin' });
    expect(await status(asToken.user.get({}))).toBe(403);
    const unknown = await client({ token: 'nope' }).repositories.get({ workspace: 'acme', repo_slug: 'widgets' }).catch((error: ClientError) => error);
    expect(unknown).toMatchObject({ status: 401, error: { type: 'error', error: { message: 'Token is invalid, expired, or not supported for this endpoint.' } } });
    expect(await status(client({ username: 'ada@example.com', password: 'wrong' }).repositories.get({ workspace: 'acme', repo_slug: 'widgets' }))).toBe(401);
    // An access token reaches its own repository only.
    bitbucket.addRepository('acme/other');
    expect(await status(asToken.repositories.get({ workspace: 'acme', repo_slug: 'other' }))).toBe(404);
    // A token without the pull-request scope.
    const narrow = client({ token: bitbucket.issueAccessToken(REPO, { scopes: ['repository'] }).token });
    expect(await status(narrow.pullrequests.get({ workspace: 'acme', repo_slug: 'widgets', pull_request_id: 7 }))).toBe(403);

    bitbucket.rateLimit(/pullrequests\/7$/);
    const limited = await asToken.pullrequests.get({ workspace: 'acme', repo_slug: 'widgets', pull_request_id: 7 }).catch((error: ClientError) => error);
    expect(limited).toMatchObject({ status: 429, error: { error: { message: 'Rate limit for this resource has been exceeded' } } });
    bitbucket.diffTooLarge();
    expect(await status(asToken.pullrequests.getDiff({ workspace: 'acme', repo_slug: 'widgets', pull_request_id: 7 }))).toBe(555);
  });
});
