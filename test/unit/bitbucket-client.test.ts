import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BitbucketClient, type BitbucketTarget } from '../../src/code-hosts/bitbucket/bitbucket-client.js';
import {
  BitbucketApiError,
  BitbucketConnectionBrokenError,
  BitbucketDiffTooLargeError,
  BitbucketRateLimitedError,
  BitbucketRefusedPositionError,
  BitbucketUnreachableError,
} from '../../src/code-hosts/bitbucket/bitbucket-errors.js';
import { bitbucketUser, FakeBitbucket } from '../fakes/fake-bitbucket.js';

const REPO = 'acme/widgets';
const HEAD = 'c'.repeat(40);
const BASE = 'b'.repeat(40);
const fileDiff = (path: string, lines: string[]) => [`diff --git a/${path} b/${path}`, 'index 1111111..2222222 100644', `--- a/${path}`, `+++ b/${path}`, ...lines].join('\n');
const DIFF = `${fileDiff('src/a.ts', ['@@ -1,2 +1,4 @@', ' const a = 1;', '+const b = 2;', '+const c = 3;', ' export { a };'])}\n`;

describe('the Bitbucket client against the fake Bitbucket Cloud', () => {
  let bitbucket: FakeBitbucket;
  let client: BitbucketClient;
  let target: BitbucketTarget;
  let adminTarget: BitbucketTarget;
  const admin = bitbucketUser('Ada Admin');
  const writer = bitbucketUser('Wes Writer');
  let tokenUserUuid: string;

  beforeAll(async () => {
    bitbucket = await new FakeBitbucket().start();
    bitbucket.addRepository(REPO);
    bitbucket.setPermission(REPO, admin, 'admin');
    bitbucket.setPermission(REPO, writer, 'write');
    bitbucket.openPullRequest(REPO, 3, { author: writer, source: HEAD, destination: BASE, diff: DIFF });
    const accessToken = bitbucket.issueAccessToken(REPO);
    tokenUserUuid = accessToken.user.uuid;
    target = { auth: { kind: 'access-token', token: accessToken.token }, workspace: 'acme', repoSlug: 'widgets' };
    const apiToken = bitbucket.issueApiToken(admin, 'ada@example.com');
    adminTarget = { auth: { kind: 'api-token', email: apiToken.email, token: apiToken.token }, workspace: 'acme', repoSlug: 'widgets' };
    client = new BitbucketClient({ apiUrl: bitbucket.apiUrl });
  });
  afterAll(() => bitbucket.stop());

  const lastRequests = (count: number) => bitbucket.requests.slice(-count);

  it('reads the repository and the pull request (12-character hashes), and the full hash of a short one', async () => {
    expect(await client.repository(target)).toMatchObject({ full_name: REPO, uuid: bitbucket.repository(REPO).uuid });
    const pullRequest = await client.pullRequest(target, 3);
    expect(pullRequest).toMatchObject({ id: 3, source: { commit: { hash: HEAD.slice(0, 12) } }, links: { html: { href: `${bitbucket.url}/${REPO}/pull-requests/3` } } });
    expect(await client.fullHash(target, HEAD.slice(0, 12))).toBe(HEAD);
    expect(await client.fullHash(target, BASE)).toBe(BASE);
  });

  it('sends Bearer for an access token and Basic email:token for an API token', async () => {
    await client.repository(adminTarget);
    expect(lastRequests(1)[0]!.headers.authorization).toBe(`Basic ${Buffer.from(`ada@example.com:${(adminTarget.auth as { token: string }).token}`).toString('base64')}`);
    await client.repository(target);
    expect(lastRequests(1)[0]!.headers.authorization).toBe(`Bearer ${(target.auth as { token: string }).token}`);
  });

  it("follows the diff's redirect with the same credentials", async () => {
    expect(await client.pullRequestDiff(target, 3)).toBe(DIFF);
    const [first, second] = lastRequests(2);
    expect(first!.path).toBe('/repositories/acme/widgets/pullrequests/3/diff');
    expect(second!.path).toBe(`/repositories/acme/widgets/diff/${REPO}:${HEAD.slice(0, 12)}%0D${BASE.slice(0, 12)}`);
    expect(second!.headers.authorization).toBe(first!.headers.authorization);
  });

  it('never follows a redirect off the API origin (the token would go with it)', async () => {
    const elsewhere = new URL(bitbucket.url);
    elsewhere.hostname = '127.0.0.2';
    bitbucket.fail(/pullrequests\/3\/diff$/, 302, { headers: { location: `${elsewhere.origin}/steal` }, body: '' });
    const before = bitbucket.requests.length;
    await expect(client.pullRequestDiff(target, 3)).rejects.toThrow(BitbucketUnreachableError);
    expect(bitbucket.requests.length).toBe(before + 1);
  });

  it('pages the diffstat and the comments by `next` to the end', async () => {
    const many = Array.from({ length: 501 }, (_, index) => fileDiff(`docs/${index}.md`, ['@@ -0,0 +1 @@', `+page ${index}`])).join('\n');
    bitbucket.openPullRequest(REPO, 4, { author: writer, source: 'd'.repeat(40), destination: BASE, diff: `${many}\n` });
    const diffstat = await client.pullRequestDiffstat(target, 4);
    expect(diffstat).toHaveLength(501);
    expect(diffstat[500]).toMatchObject({ new: { path: 'docs/500.md' }, lines_added: 1 });
    for (let index = 0; index < 120; index++) bitbucket.addComment(REPO, 4, `comment ${index}`, writer);
    const comments = await client.listComments(target, 4);
    expect(comments.map((comment) => comment.content.raw)).toEqual(Array.from({ length: 120 }, (_, index) => `comment ${index}`));
    expect(lastRequests(2).map((request) => request.query.page)).toEqual([undefined, '2']);
  });

  it("reads a push's diff as /diff/{new}..{old}?topic=false, and null when Bitbucket has no such diff", async () => {
    bitbucket.setDiff(REPO, `${HEAD}..${BASE}`, 'diff --git a/x b/x\n', { topic: false });
    expect(await client.commitsDiff(target, HEAD, BASE)).toBe('diff --git a/x b/x\n');
    expect(lastRequests(1)[0]).toMatchObject({ path: `/repositories/acme/widgets/diff/${HEAD}..${BASE}`, query: { topic: 'false' } });
    expect(await client.commitsDiff(target, BASE, HEAD)).toBeNull();
  });

  it('reads a file at a commit, null when it is not there', async () => {
    bitbucket.setFile(REPO, BASE, '.ai-review.yml', 'reviews:\n  drafts: true\n');
    bitbucket.setFile(REPO, BASE, 'src/a b.ts', 'spaced\n');
    expect(await client.fileAt(target, BASE.slice(0, 12), '.ai-review.yml')).toBe('reviews:\n  drafts: true\n');
    expect(await client.fileAt(target, BASE, 'src/a b.ts')).toBe('spaced\n');
    expect(await client.fileAt(target, BASE, 'missing.yml')).toBeNull();
  });

  it('posts comments inline, as a span and as replies; a refused anchor is a refused position; edits in place', async () => {
    const inline = await client.createComment(target, 3, 'one line', { anchor: { path: 'src/a.ts', to: 2 } });
    expect(inline).toMatchObject({ inline: { path: 'src/a.ts', to: 2 }, user: { uuid: tokenUserUuid } });
    const span = await client.createComment(target, 3, 'span', { anchor: { path: 'src/a.ts', to: 3, startTo: 2 } });
    expect(span.inline).toMatchObject({ to: 3, start_to: 2 });
    // A span of one line is sent as that line alone.
    await client.createComment(target, 3, 'one', { anchor: { path: 'src/a.ts', to: 3, startTo: 3 } });
    expect(lastRequests(1)[0]!.body).toEqual({ content: { raw: 'one' }, inline: { path: 'src/a.ts', to: 3 } });

    const refused = client.createComment(target, 3, 'far', { anchor: { path: 'src/a.ts', to: 40 } });
    await expect(refused).rejects.toThrow(BitbucketRefusedPositionError);
    await expect(refused).rejects.toMatchObject({ status: 400, message: expect.stringContaining('not part of the diff') });
    await expect(client.createComment(target, 3, 'elsewhere', { anchor: { path: 'README.md', to: 1 } })).rejects.toThrow(BitbucketRefusedPositionError);

    const reply = await client.createComment(target, 3, 'Addressed', { parentId: inline.id });
    expect(reply).toMatchObject({ parent: { id: inline.id }, inline: { path: 'src/a.ts' } });
    const summary = await client.createComment(target, 3, 'Summary v1');
    expect(await client.updateComment(target, 3, summary.id, 'Summary v2')).toMatchObject({ id: summary.id, content: { raw: 'Summary v2' } });
  });

  it('resolves an inline thread; one resolved meanwhile (409) and a reply (403) come back refused, to be answered instead', async () => {
    const inline = await client.createComment(target, 3, 'gone later', { anchor: { path: 'src/a.ts', to: 2 } });
    expect(await client.resolveComment(target, 3, inline.id)).toBe('resolved');
    expect(await client.resolveComment(target, 3, inline.id)).toBe('refused');
    const reply = await client.createComment(target, 3, 'reply', { parentId: inline.id });
    expect(await client.resolveComment(target, 3, reply.id)).toBe('refused');
  });

  it('posts the build status by key, overwriting it', async () => {
    await client.postBuildStatus(target, HEAD.slice(0, 12), { key: 'ai-review', state: 'INPROGRESS', name: 'AI review', url: 'https://review.example/pulls/1' });
    expect(await client.postBuildStatus(target, HEAD.slice(0, 12), { key: 'ai-review', state: 'SUCCESSFUL', name: 'AI review', url: 'https://review.example/pulls/1', description: '0 critical, 1 major' })).toMatchObject({ key: 'ai-review', state: 'SUCCESSFUL' });
    expect(bitbucket.repository(REPO).statuses.filter((status) => status.commit === HEAD)).toEqual([expect.objectContaining({ state: 'SUCCESSFUL', writes: 2 })]);
  });

  it('creates and deletes the hook; deleting one already gone is no error', async () => {
    const hook = await client.createHook(target, { url: 'https://review.example/webhook/bitbucket', secret: 's'.repeat(64), events: ['pullrequest:created'], description: 'AI review' });
    expect(bitbucket.repository(REPO).hooks).toEqual([expect.objectContaining({ uuid: hook.uuid, secret: 's'.repeat(64), active: true })]);
    await client.deleteHook(target, hook.uuid);
    await client.deleteHook(target, hook.uuid);
    expect(bitbucket.repository(REPO).hooks).toEqual([]);
  });

  it("probes and reads permissions with an admin's API token; an access token cannot (commands off)", async () => {
    expect(await client.canReadPermissions(adminTarget)).toBe(true);
    expect(await client.canReadPermissions(target)).toBe(false);
    expect(await client.permissionOf(adminTarget, writer.uuid)).toBe('write');
    expect(await client.permissionOf(adminTarget, bitbucketUser('Stranger').uuid)).toBeNull();
    expect(await client.currentUser(adminTarget.auth)).toMatchObject({ uuid: admin.uuid });
    expect(await client.currentUser(target.auth)).toBeNull();
  });

  it('turns a 429 into a retry later (a minute without Retry-After, else as asked)', async () => {
    bitbucket.rateLimit(/pullrequests\/3$/);
    const limited = await client.pullRequest(target, 3).catch((error: unknown) => error);
    expect(limited).toBeInstanceOf(BitbucketRateLimitedError);
    expect(limited).toMatchObject({ delayMs: 60_000, message: expect.stringContaining('Rate limit for this resource has been exceeded') });
    bitbucket.fail(/pullrequests\/3$/, 429, { headers: { 'retry-after': '5' } });
    await expect(client.pullRequest(target, 3)).rejects.toMatchObject({ delayMs: 5_000 });
  });

  it("turns a 401 and a 403 into a broken connection with Bitbucket's reason", async () => {
    const { token } = bitbucket.issueAccessToken(REPO);
    bitbucket.revokeAccessToken(token);
    const revoked = await client.repository({ ...target, auth: { kind: 'access-token', token } }).catch((error: unknown) => error);
    expect(revoked).toBeInstanceOf(BitbucketConnectionBrokenError);
    expect(revoked).toMatchObject({ status: 401, message: 'Token is invalid, expired, or not supported for this endpoint.' });
    const narrow = { ...target, auth: { kind: 'access-token' as const, token: bitbucket.issueAccessToken(REPO, { scopes: ['repository'] }).token } };
    await expect(client.pullRequest(narrow, 3)).rejects.toMatchObject({ name: 'BitbucketConnectionBrokenError', status: 403, message: 'Your credentials lack one or more required privilege scopes. (required: pullrequest)' });
  });

  it('turns a 555 into a too-large diff, a 404 into an API error, and a closed port into unreachable', async () => {
    bitbucket.diffTooLarge();
    await expect(client.pullRequestDiff(target, 3)).rejects.toThrow(BitbucketDiffTooLargeError);
    const missing = await client.pullRequest(target, 99).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(BitbucketApiError);
    expect(missing).toMatchObject({ status: 404 });
    const closed = new BitbucketClient({ apiUrl: 'http://127.0.0.1:9/2.0', timeoutMs: 2_000 });
    await expect(closed.repository(target)).rejects.toThrow(BitbucketUnreachableError);
  });
});
