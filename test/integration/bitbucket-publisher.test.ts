import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RetryLaterError, UnrecoverableJobError, type BitbucketCommand } from '../../src/adapters/queue/job-queue.js';
import { SnapshotCache } from '../../src/code-context/snapshot/snapshot-cache.js';
import { BitbucketClient, type BitbucketTarget } from '../../src/code-hosts/bitbucket/bitbucket-client.js';
import { BitbucketConnectionRepository } from '../../src/code-hosts/bitbucket/bitbucket-connection-repository.js';
import { BitbucketConnectionBrokenError } from '../../src/code-hosts/bitbucket/bitbucket-errors.js';
import { bitbucketHost } from '../../src/code-hosts/bitbucket/bitbucket-host.js';
import type { BitbucketConnection } from '../../src/code-hosts/bitbucket/bitbucket-tables.js';
import type { ChangePublisher, HostSession } from '../../src/code-hosts/code-host.js';
import type { CodeHost } from '../../src/code-hosts/code-hosts.js';
import { pullRequests, type PullRequest } from '../../src/db/schema/index.js';
import type { PublishableFinding } from '../../src/domain/findings.js';
import { resolveGone } from '../../src/publishing/resolve-gone.js';
import { bitbucketUser, FakeBitbucket, type FakeBitbucketUser } from '../fakes/fake-bitbucket.js';
import { createAccount } from '../helpers/accounts.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

const REPO = 'acme/widgets';
const DETAILS = 'https://review.example.com/pulls/1';
const file = (path: string, hunks: string[]) => [`diff --git a/${path} b/${path}`, 'index 1111111..2222222 100644', `--- a/${path}`, `+++ b/${path}`, ...hunks].join('\n');
// New side of src/a.ts: 1 (context), 2-3 (added), 4 (context); line 9 is nowhere in the diff.
const DIFF = `${file('src/a.ts', ['@@ -1,2 +1,4 @@', ' const a = 1;', '+const b = 2;', '+const c = 3;', ' export { a };'])}\n`;

let hashes = 0;
/** A full hash whose 12-character form (what payloads and the API show) is unique too. */
const hash = () => `${(++hashes).toString(16).padStart(12, '0')}${'e'.repeat(28)}`;

const finding = (id: string, line: number, endLine = line, severity: PublishableFinding['severity'] = 'MAJOR'): PublishableFinding => ({
  id,
  file: 'src/a.ts',
  line,
  endLine,
  severity,
  confidence: 0.9,
  title: `Finding ${id}`,
  comment: `Why ${id} matters <b>here</b>.`,
  failureScenario: 'It breaks.',
  suggestedFix: 'Fix it.',
  replacement: null,
});

describe('Bitbucket as a code host: publisher, reader and commands against the fake Bitbucket Cloud', () => {
  let bitbucket: FakeBitbucket;
  let test: TestApp;
  let connections: BitbucketConnectionRepository;
  let host: CodeHost;
  let apiConnection: BitbucketConnection;
  let tokenConnection: BitbucketConnection;
  const targets = new Map<string, BitbucketTarget>();
  const admin = bitbucketUser('Ada Admin');
  const writer = bitbucketUser('Wes Writer');
  const reader = bitbucketUser('Rita Reader');
  let tokenUser: FakeBitbucketUser;
  let nextNumber = 1;

  beforeAll(async () => {
    bitbucket = await new FakeBitbucket().start();
    const repository = bitbucket.addRepository(REPO);
    bitbucket.setPermission(REPO, admin, 'admin');
    bitbucket.setPermission(REPO, writer, 'write');
    bitbucket.setPermission(REPO, reader, 'read');
    test = await createTestApp({ role: 'api', env: { BITBUCKET_API_URL: bitbucket.apiUrl } });
    connections = new BitbucketConnectionRepository(test.app.db);
    const [owner, other] = [await createAccount(test.app, test.outbox), await createAccount(test.app, test.outbox)];
    const base = { workspace: 'acme', repoSlug: 'widgets', repositoryUuid: repository.uuid, fullName: REPO, htmlUrl: `${bitbucket.url}/${REPO}`, webhookSecret: 'sealed', hookUuid: '{hook}' };
    const apiToken = bitbucket.issueApiToken(admin, 'ada@example.com');
    apiConnection = await connections.create({ ...base, userId: owner.id, token: 'sealed', email: apiToken.email, commands: true });
    targets.set(apiConnection.id, { workspace: 'acme', repoSlug: 'widgets', auth: { kind: 'api-token', email: apiToken.email, token: apiToken.token } });
    const accessToken = bitbucket.issueAccessToken(REPO);
    tokenUser = accessToken.user;
    tokenConnection = await connections.create({ ...base, userId: other.id, token: 'sealed', email: null, commands: false });
    targets.set(tokenConnection.id, { workspace: 'acme', repoSlug: 'widgets', auth: { kind: 'access-token', token: accessToken.token } });
    host = bitbucketHost({
      client: new BitbucketClient({ apiUrl: bitbucket.apiUrl }),
      connections,
      pullRequests: test.app.repos.pullRequests,
      publications: test.app.repos.publications,
      target: (connection) => targets.get(connection.id)!,
      markBroken: (connectionId, brokenReason) => connections.setStatus(connectionId, { status: 'broken', brokenReason }),
      kv: test.app.kv,
      log: test.app.log,
    });
  });

  afterAll(async () => {
    await test?.close();
    await bitbucket?.stop();
  });

  /** A pull request on the fake and its record, as the webhook intake stores it (payload in `bodyBlob`, 12-character hashes). */
  async function openPullRequest(connection: BitbucketConnection, options: { diff?: string; payload?: boolean } = {}) {
    const number = nextNumber++;
    const [head, base] = [hash(), hash()];
    const fake = bitbucket.openPullRequest(REPO, number, { author: writer, source: head, destination: base, diff: options.diff ?? DIFF });
    const payload = bitbucket.eventPayload(REPO, number, writer) as { pullrequest: { links: { html: { href: string } } } };
    const [pr] = await test.app.db
      .insert(pullRequests)
      .values({
        userId: connection.userId,
        prId: await connections.prIdOf(connection.id, number),
        provider: 'bitbucket',
        repositoryName: REPO,
        prNumber: number,
        title: fake.title,
        state: 'open',
        headBranch: fake.source.branch,
        baseBranch: fake.destination.branch,
        baseSha: fake.destination.commit,
        headSha: fake.source.commit,
        htmlUrl: payload.pullrequest.links.html.href,
        bodyBlob: options.payload === false ? {} : payload,
      })
      .returning();
    return { pr: pr!, number, fake, head, base };
  }

  const sessionOf = async (pr: PullRequest): Promise<HostSession> => (await host.session(pr))!;
  const publish = async <T>(pr: PullRequest, call: (publisher: ChangePublisher) => Promise<T>) => (await sessionOf(pr)).run(call);
  const command = (connection: BitbucketConnection, number: number, author: FakeBitbucketUser, body: string, parentId: number | null = null): BitbucketCommand => {
    const comment = bitbucket.addComment(REPO, number, body, author, parentId === null ? {} : { parentId });
    return { provider: 'bitbucket', connectionId: connection.id, number, commentId: comment.id, authorUuid: author.uuid, body, parentId };
  };

  it('posts the AI review build status under one key: INPROGRESS, then SUCCESSFUL counting blocking findings, or FAILED with the reason', async () => {
    const { pr, head } = await openPullRequest(apiConnection);
    const statuses = () => bitbucket.repository(REPO).statuses.filter((status) => status.commit === head);
    await publish(pr, (p) => p.postStatus(pr.headSha, { phase: 'running', blocking: 0, title: 'Reviewing', summary: '', detailsUrl: DETAILS }, null));
    expect(statuses()).toEqual([expect.objectContaining({ key: 'ai-review', name: 'AI review', state: 'INPROGRESS', url: DETAILS })]);
    await publish(pr, (p) => p.postStatus(pr.headSha, { phase: 'completed', blocking: 2, title: '2 critical or major findings', summary: '', detailsUrl: DETAILS }, 0));
    expect(statuses()).toEqual([expect.objectContaining({ state: 'SUCCESSFUL', description: '2 critical or major findings', writes: 2 })]);
    await publish(pr, (p) => p.postStatus(pr.headSha, { phase: 'failed', blocking: 0, title: 'Review failed', summary: '', reason: 'the model timed out', detailsUrl: DETAILS }, 0));
    expect(statuses()).toEqual([expect.objectContaining({ state: 'FAILED', description: 'Review failed: the model timed out' })]);
  });

  it('posts findings inline on new-side lines of the diff, a span with start_to; off the diff or refused by Bitbucket they come back refused', async () => {
    const { pr, number } = await openPullRequest(apiConnection);
    const findings = [finding('f-added', 2), finding('f-span', 2, 3), finding('f-context', 4), finding('f-off', 9)];
    const outcome = await publish(pr, async (p) => {
      await p.postedFindings(findings);
      return p.postFindings(pr.headSha, findings);
    });
    expect(outcome.posted.map((posted) => posted.findingId)).toEqual(['f-added', 'f-span', 'f-context']);
    expect(outcome.refused.map((refused) => refused.id)).toEqual(['f-off']);
    const comments = bitbucket.pullRequest(REPO, number).comments;
    expect(comments.map((comment) => comment.inline)).toEqual([
      { path: 'src/a.ts', from: null, to: 2 },
      { path: 'src/a.ts', from: null, to: 3, start_to: 2, start_from: null },
      { path: 'src/a.ts', from: null, to: 4 },
    ]);
    for (const comment of comments) {
      expect(comment.raw).toMatch(/^\[ai-review:finding:f-[a-z]+\]: #\n/);
      expect(comment.raw).not.toMatch(/<!--|<details>/);
      expect(comment.user.uuid).toBe(admin.uuid);
    }
    expect(outcome.posted[0]!.note.url).toContain(`#comment-${comments[0]!.id}`);

    // Bitbucket refusing an anchor on the diff (a 4xx) sends that finding to the summary too.
    bitbucket.fail(/^POST \/repositories\/acme\/widgets\/pullrequests\/\d+\/comments$/, 400);
    const refused = await publish(pr, (p) => p.postFindings(pr.headSha, [finding('f-refused', 1)]));
    expect(refused).toMatchObject({ posted: [], refused: [{ id: 'f-refused' }] });
  });

  it('reads its own findings back by their markers (a retry posts nothing twice); a forged marker by someone else is not its own', async () => {
    const { pr, number } = await openPullRequest(apiConnection);
    await publish(pr, (p) => p.postFindings(pr.headSha, [finding('f-one', 2)]));
    bitbucket.addComment(REPO, number, '[ai-review:finding:f-forged]: #\nnot the service', writer);
    const posted = await publish(pr, (p) => p.postedFindings([finding('f-one', 2), finding('f-forged', 3)]));
    expect([...posted.keys()]).toEqual(['f-one']);
    expect(posted.get('f-one')!.body).toMatch(/^\[ai-review:finding:f-one\]: #/);
  });

  it('creates the summary once and edits it in place, leaving an unchanged one alone and a forged one untouched', async () => {
    const { pr, number } = await openPullRequest(apiConnection);
    const forged = bitbucket.addComment(REPO, number, '[ai-review:summary]: #\nforged', writer);
    const first = await publish(pr, (p) => p.upsertSummary('[ai-review:summary]: #\n## AI review\nv1'));
    expect(first.id).not.toBe(forged.id);
    const again = await publish(pr, (p) => p.upsertSummary('[ai-review:summary]: #\n## AI review\nv1'));
    const edited = await publish(pr, (p) => p.upsertSummary('[ai-review:summary]: #\n## AI review\nv2'));
    expect([again.id, edited.id]).toEqual([first.id, first.id]);
    const summary = bitbucket.pullRequest(REPO, number).comments.find((comment) => comment.id === first.id)!;
    expect(summary).toMatchObject({ raw: '[ai-review:summary]: #\n## AI review\nv2', edits: 1, inline: null });
    expect(forged.raw).toBe('[ai-review:summary]: #\nforged');
  });

  it('resolves the comments of gone findings; where Bitbucket refuses (403, 409) it replies naming the new head, once', async () => {
    const { pr, number } = await openPullRequest(apiConnection);
    const outcome = await publish(pr, (p) => p.postFindings(pr.headSha, [finding('g-resolved', 2), finding('g-refused', 3), finding('g-conflict', 4)]));
    const idOf = (findingId: string) => outcome.posted.find((posted) => posted.findingId === findingId)!.note.id;
    const gone = ['g-resolved', 'g-refused', 'g-conflict'].map((findingId) => ({ findingId, commentId: idOf(findingId) }));
    bitbucket.fail(new RegExp(`^POST .*/comments/${idOf('g-refused')}/resolve$`), 403);
    bitbucket.fail(new RegExp(`^POST .*/comments/${idOf('g-conflict')}/resolve$`), 409);
    const handled: string[] = [];
    const newHead = 'abcdef123456';
    await publish(pr, (p) => resolveGone(p, gone, newHead, async (findingId) => void handled.push(findingId), test.app.log));
    expect(handled).toEqual(['g-resolved', 'g-refused', 'g-conflict']);
    const comments = bitbucket.pullRequest(REPO, number).comments;
    expect(comments.find((comment) => comment.id === idOf('g-resolved'))!.resolution).not.toBeNull();
    const replies = comments.filter((comment) => comment.parentId !== null);
    expect(replies.map((reply) => [reply.parentId, reply.raw.split('\n')[0]])).toEqual([
      [idOf('g-refused'), '[ai-review:addressed:g-refused]: #'],
      [idOf('g-conflict'), '[ai-review:addressed:g-conflict]: #'],
    ]);
    expect(replies[0]!.raw).toContain(`Addressed in ${newHead}`);

    // A retried job finds the threads answered (or resolved) and writes nothing more.
    await publish(pr, (p) => resolveGone(p, gone, newHead, async () => undefined, test.app.log));
    expect(bitbucket.pullRequest(REPO, number).comments).toHaveLength(comments.length);
  });

  it('a 401 marks the connection broken with Bitbucket\'s reason and ends the job; nothing is posted while it is broken', async () => {
    const { pr } = await openPullRequest(apiConnection);
    const session = await sessionOf(pr);
    bitbucket.fail(/statuses\/build$/, 401, { body: { type: 'error', error: { message: 'Token is invalid, expired, or not supported for this endpoint.' } } });
    const error = await session.run((p) => p.postStatus(pr.headSha, { phase: 'running', blocking: 0, title: 'Reviewing', summary: '', detailsUrl: DETAILS }, null)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(BitbucketConnectionBrokenError);
    expect(session.failure(error)).toBeInstanceOf(UnrecoverableJobError);
    expect(await connections.find(apiConnection.id)).toMatchObject({ status: 'broken', brokenReason: 'Token is invalid, expired, or not supported for this endpoint.' });
    expect(await host.session(pr)).toBeUndefined();
    expect(await host.publicationBlock(pr)).toEqual({ state: 'failed', reason: "Bitbucket refused the connection's token: Token is invalid, expired, or not supported for this endpoint." });
    await connections.setStatus(apiConnection.id, { status: 'active', brokenReason: null });
    expect(await host.publicationBlock(pr)).toBeUndefined();
  });

  it('a 429 is a RetryLaterError the queue waits on; the connection stays active', async () => {
    const { pr } = await openPullRequest(apiConnection);
    const session = await sessionOf(pr);
    bitbucket.rateLimit(/\/comments$/);
    const error = await session.run((p) => p.postedFindings()).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RetryLaterError);
    expect(session.failure(error)).toBe(error);
    expect(await connections.find(apiConnection.id)).toMatchObject({ status: 'active' });
  });

  it('reads the diff, a push diff in Bitbucket\'s reversed order, files, and the config at the destination commit; a 555 fails the review with its reason', async () => {
    const { pr, base, head } = await openPullRequest(apiConnection);
    const changes = await host.reader(pr, undefined);
    expect(changes.repositoryKey).toBe(`bitbucket:${apiConnection.repositoryUuid}`);
    expect(await changes.changeDiff()).toBe(DIFF);
    const pushed = `${file('src/a.ts', ['@@ -4 +4,2 @@', ' export { a };', '+export { b };'])}\n`;
    bitbucket.setDiff(REPO, `${head.slice(0, 12)}..${base.slice(0, 12)}`, pushed, { topic: false });
    expect(await changes.pushDiff(base.slice(0, 12), head.slice(0, 12))).toBe(pushed);
    expect(await changes.configRef()).toBe(base.slice(0, 12));
    bitbucket.setFile(REPO, base, '.ai-review.yml', 'reviews:\n  drafts: true\n');
    expect(await changes.fileAt('.ai-review.yml', await changes.configRef())).toBe('reviews:\n  drafts: true\n');
    expect(await changes.fileAt('missing.yml', base.slice(0, 12))).toBeNull();

    // Without a destination in the stored payload, the pull request itself says.
    const bare = await openPullRequest(apiConnection, { payload: false });
    expect(await (await host.reader(bare.pr, undefined)).configRef()).toBe(bare.base.slice(0, 12));

    bitbucket.diffTooLarge();
    const tooLarge = await changes.changeDiff().catch((caught: unknown) => caught);
    expect(tooLarge).toBeInstanceOf(UnrecoverableJobError);
    expect((tooLarge as Error).message).toMatch(/too large.*555/);
  });

  it('snapshots the code file by file through /src (no archive): the listing walks folders, files are read when needed', async () => {
    const { pr, head } = await openPullRequest(apiConnection);
    bitbucket.setFile(REPO, head, 'src/a.ts', 'export const a = 1;\n');
    bitbucket.setFile(REPO, head, 'src/lib/b.ts', 'export const b = 2;\n');
    bitbucket.setFile(REPO, head, 'README.md', '# widgets\n');
    const source = (await host.reader(pr, undefined)).snapshotSource();
    expect('archive' in source).toBe(false);
    const listing = await source.listFiles(pr.headSha);
    expect(listing.truncated).toBe(false);
    expect(listing.files.map((entry) => entry.path).sort()).toEqual(['README.md', 'src/a.ts', 'src/lib/b.ts']);
    const root = await mkdtemp(join(tmpdir(), 'bitbucket-snapshots-'));
    try {
      const snapshot = await new SnapshotCache({ root, maxBytes: 10 * 1024 * 1024 }).open(source, pr.headSha, ['src/a.ts']);
      expect(snapshot.mode).toBe('files');
      expect(await snapshot.readFile('src/lib/b.ts')).toBe('export const b = 2;\n');
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it('takes commands only from write or admin users, never from the connection\'s own account or on an access-token connection', async () => {
    const { pr, number } = await openPullRequest(apiConnection);
    const target = await host.commandTarget(command(apiConnection, number, writer, '/review'));
    expect(target).toMatchObject({ mention: 'ai-review', pr: { id: pr.id } });
    expect(await host.commandTarget(command(apiConnection, number, reader, '/review'))).toBeUndefined();
    expect(await host.commandTarget(command(apiConnection, number, bitbucketUser('Stranger'), '/review'))).toBeUndefined();
    // The API token's own account (`GET /user`), remembered on the connection.
    expect(await host.commandTarget(command(apiConnection, number, admin, '/review'))).toBeUndefined();
    expect((await connections.find(apiConnection.id))!.accountUuid).toBe(admin.uuid);
    expect(await host.commandTarget(command(apiConnection, number, writer, '[ai-review:summary]: #\n/review'))).toBeUndefined();
    // Access tokens cannot read permissions: fail closed.
    const onToken = await openPullRequest(tokenConnection);
    expect(await host.commandTarget(command(tokenConnection, onToken.number, writer, '/review'))).toBeUndefined();

    // The permission is cached a few minutes: a second command reads none.
    const permissionReads = () => bitbucket.requests.filter((request) => request.path.startsWith('/workspaces/acme/permissions/repositories/widgets')).length;
    const before = permissionReads();
    expect(await host.commandTarget(command(apiConnection, number, writer, '/help'))).toBeDefined();
    expect(permissionReads()).toBe(before);
  });

  it('answers a command as a reply to its comment, found again by its marker; a verdict reply names the finding of its thread', async () => {
    const { pr, number } = await openPullRequest(apiConnection);
    const ask = command(apiConnection, number, writer, '/ask why?');
    const target = (await host.commandTarget(ask))!;
    const answer = `[ai-review:reply:${ask.commentId}]: #\nBecause.`;
    await target.session.run(async (p) => {
      await p.acknowledge(ask.commentId);
      await p.reply(answer);
    });
    const reply = bitbucket.pullRequest(REPO, number).comments.at(-1)!;
    expect(reply).toMatchObject({ parentId: ask.commentId, raw: answer });
    expect((await target.session.run((p) => p.ownNotes())).map((note) => note.body)).toContain(answer);

    const { posted } = await publish(pr, (p) => p.postFindings(pr.headSha, [finding('v-one', 2)]));
    const thread = posted[0]!.note;
    await test.app.repos.publications.recordPosted([{ pullRequestId: pr.id, findingId: 'v-one', commentId: thread.id, commentUrl: thread.url, commitSha: pr.headSha }]);
    const verdict = (await host.commandTarget(command(apiConnection, number, writer, '/wrong not a bug', thread.id)))!;
    expect(await verdict.findingOfReply!()).toBe('v-one');
    // A reply to a reply in that thread still names its finding.
    const nested = bitbucket.addComment(REPO, number, 'I agree', reader, { parentId: thread.id });
    const deeper = (await host.commandTarget(command(apiConnection, number, writer, '/helpful', nested.id)))!;
    expect(await deeper.findingOfReply!()).toBe('v-one');
    expect((await host.commandTarget(command(apiConnection, number, writer, '/review')))!.findingOfReply).toBeUndefined();
  });

  it('with an access token, learns its account from the first comment it creates, and takes only that account\'s comments for its own', async () => {
    const { pr, number } = await openPullRequest(tokenConnection);
    bitbucket.addComment(REPO, number, '[ai-review:summary]: #\nforged before the service wrote anything', writer);
    expect((await connections.find(tokenConnection.id))!.accountUuid).toBeNull();
    expect(await publish(pr, (p) => p.ownNotes())).toEqual([]);
    const summary = await publish(pr, (p) => p.upsertSummary('[ai-review:summary]: #\nmine'));
    expect((await connections.find(tokenConnection.id))!.accountUuid).toBe(tokenUser.uuid);
    expect((await publish(pr, (p) => p.ownNotes())).map((note) => note.id)).toEqual([summary.id]);
  });

  it('names a pull request with # and its record id, and reads the description from the stored payload', async () => {
    const { pr, fake } = await openPullRequest(apiConnection);
    expect(host.name).toBe('Bitbucket');
    expect(host.changeLabel(pr)).toBe(`${REPO}#${pr.prNumber}: ${fake.title} (Bitbucket pull request, id ${pr.id})`);
    expect(host.description(pr)).toBeNull();
    expect(host.description({ ...pr, bodyBlob: { pullrequest: { description: 'Adds b and c.' } } })).toBe('Adds b and c.');
    expect(host.unpublishedReason(pr)).toBeNull();
  });
});
