import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookDeliveries } from '../../src/db/schema/index.js';
import type { FakeComment } from '../fakes/fake-bitbucket.js';
import { BitbucketWorld, gitDiff, HTML, PUBLIC_URL, reviewer, type ConnectedRepository } from '../helpers/bitbucket-world.js';

const SHA1 = '1'.repeat(40);
const SHA2 = '2'.repeat(40);
const BASE = 'a'.repeat(40);

const MATH_LINES = [
  ' export function average(values: number[]): number {',
  '-  return values.reduce((a, b) => a + b, 0) / values.length;',
  '+  let total = 0;',
  '+  for (let i = 0; i <= values.length; i++) {',
  '+    total += values[i];',
  '+  }',
  '+  return total / values.length;',
  ' }',
  ' ',
  ' export function clamp(value: number, min: number, max: number): number {',
];
/** An off-by-one on new line 3 of src/math.ts (new lines 1 to 9 in the diff), and a new src/greet.ts. */
const MATH = { path: 'src/math.ts', hunk: '@@ -1,5 +1,9 @@', lines: MATH_LINES };
const GREET = { path: 'src/greet.ts', hunk: '@@ -0,0 +1,3 @@', lines: ['+export function greet(name: string) {', "+  return 'Hello ' + name;", '+}'], created: true };
const SUM = { path: 'src/sum.ts', hunk: '@@ -0,0 +1,3 @@', lines: ['+export function sum(values: number[]) {', '+  return values.filter((value) => value > 0).reduce((a, b) => a + b, 0);', '+}'], created: true };
const MATH_FIXED = { ...MATH, lines: MATH_LINES.map((line) => line.replace('i <= values.length', 'i < values.length')) };
const PUSH_FIX = { path: 'src/math.ts', hunk: '@@ -1,5 +1,5 @@', lines: [' export function average(values: number[]): number {', '   let total = 0;', '-  for (let i = 0; i <= values.length; i++) {', '+  for (let i = 0; i < values.length; i++) {', '     total += values[i];', '   }'] };

const OFF_BY_ONE = { file: 'src/math.ts', line: 3, severity: 'CRITICAL', confidence: 95, title: 'Off-by-one reads past the end of the array' };
const TEMPLATE = { file: 'src/greet.ts', line: 1, endLine: 2, severity: 'MAJOR', confidence: 90, title: 'Use a template literal', replacement: 'export function greet(name: string) {\n  return `Hello ${name}`;' };
const REFUSED = { file: 'src/greet.ts', line: 3, severity: 'MINOR', confidence: 85, title: 'greet() has no return type <string>' };
const NEGATIVES = { file: 'src/sum.ts', line: 2, severity: 'MAJOR', confidence: 90, title: 'Negative numbers are silently dropped' };

const FINDING_MARKER = /^\[ai-review:finding:([0-9a-f]{16})\]: #\n/;

/** Bitbucket pull requests end to end (decisions.md §16): connected, reviewed, pushed to, commanded. */
describe('Bitbucket pull requests, end to end', () => {
  let w: BitbucketWorld;
  let repo: ConnectedRepository;
  let prId: string;

  beforeAll(async () => {
    w = await BitbucketWorld.start();
    repo = await w.connect('acme/widgets');
  });
  afterAll(() => w.close());

  const comments = (number = 1) => w.bitbucket.pullRequest(repo.fullName, number).comments;
  const inline = (number = 1) => comments(number).filter((comment) => comment.inline !== null && comment.parentId === null);
  const summaries = (number = 1) => comments(number).filter((comment) => comment.raw.startsWith('[ai-review:summary]: #\n'));
  const findingOf = (comment: FakeComment) => FINDING_MARKER.exec(comment.raw)![1]!;

  it('connects a repository: the service creates its signed webhook; a new pull request is reviewed and posted, and a resent delivery posts nothing twice', async () => {
    const [hook] = w.bitbucket.repository(repo.fullName).hooks;
    expect(hook).toMatchObject({ url: `${PUBLIC_URL}/webhook/bitbucket`, active: true, events: ['pullrequest:created', 'pullrequest:updated', 'pullrequest:fulfilled', 'pullrequest:rejected', 'pullrequest:comment_created'] });
    expect(hook!.secret!.length).toBeGreaterThanOrEqual(32);
    expect(hook!.secret!.length).toBeLessThanOrEqual(128);
    expect(repo.commands).toBe(true);
    const listed = (await w.app.inject({ method: 'GET', url: '/bitbucket/connections', headers: { cookie: w.owner.cookie } })).json<unknown[]>();
    expect(listed).toEqual([expect.objectContaining({ id: repo.connectionId, workspace: 'acme', repoSlug: 'widgets', repository: expect.objectContaining({ uuid: repo.uuid, fullName: repo.fullName }), hookUuid: repo.hookUuid, commands: true, status: 'active', reason: null })]);
    expect(JSON.stringify(listed)).not.toContain(hook!.secret!);

    w.world.model.reply(reviewer([OFF_BY_ONE, TEMPLATE, REFUSED]));
    w.bitbucket.openPullRequest(repo.fullName, 1, { author: w.writer, source: SHA1, destination: BASE, diff: gitDiff([MATH, GREET]) });
    // Bitbucket refuses one anchor on the diff, every time (what it answers there is undocumented, facts §3): that finding goes to the summary.
    const onLine3 = (body: Record<string, unknown>) => (body.inline as { path?: string; to?: number } | undefined)?.path === 'src/greet.ts' && (body.inline as { to?: number }).to === 3;
    w.bitbucket.fail(/^POST \/repositories\/acme\/widgets\/pullrequests\/1\/comments$/, 400, { times: 100, when: onLine3, body: { type: 'error', error: { message: 'inline.to: line 3 cannot be commented on', fields: { inline: ['line 3 cannot be commented on'] } } } });
    const created = await w.send(repo, 'created', 1);
    // Bitbucket's retry of that delivery: the same X-Request-UUID, a higher attempt number.
    const payload = w.payload(repo, 'created', 1, w.writer);
    expect((await w.deliver(repo, 'created', payload, { requestUuid: created.requestUuid, attempt: 2 })).statusCode).toBe(200);
    prId = await w.prIdOf(repo, 1);
    const review = await w.settled(prId, (current) => current.publication.state === 'published');
    expect(review).toMatchObject({ prId, provider: 'bitbucket', url: `${w.bitbucket.url}/acme/widgets/pull-requests/1`, reviewStatus: 'completed', reviewdSha: SHA1 });
    const list = (await w.app.inject({ method: 'GET', url: '/pull-request/list', headers: { cookie: w.owner.cookie } })).json<Array<{ prId: string; provider: string; url: string }>>();
    expect(list).toContainEqual(expect.objectContaining({ prId, provider: 'bitbucket', url: `${w.bitbucket.url}/acme/widgets/pull-requests/1` }));
    expect(await w.app.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.prId, (await w.record(repo, 1))!.prId))).toHaveLength(1);

    // The build status, one key: INPROGRESS, then SUCCESSFUL counting critical and major findings.
    const details = `${PUBLIC_URL}/pulls/${prId}`;
    expect(w.statusPosts(repo, SHA1).map((status) => [status.key, status.name, status.state, status.url])).toEqual([
      ['ai-review', 'AI review', 'INPROGRESS', details],
      ['ai-review', 'AI review', 'SUCCESSFUL', details],
    ]);
    expect(w.bitbucket.repository(repo.fullName).statuses).toEqual([expect.objectContaining({ commit: SHA1, key: 'ai-review', state: 'SUCCESSFUL', description: '2 critical or major findings', writes: 2 })]);

    // One inline comment per finding on the diff's new side, a span with start_to; the refused one is in the summary.
    const posted = inline();
    expect(posted.map((comment) => comment.inline)).toEqual([
      { path: 'src/math.ts', from: null, to: 3 },
      { path: 'src/greet.ts', from: null, to: 2, start_to: 1, start_from: null },
    ]);
    expect(posted[0]!.raw).toMatch(/^\[ai-review:finding:[0-9a-f]{16}\]: #\n\n\*\*CRITICAL\*\* · Off-by-one/);
    expect(posted[1]!.raw).toContain('```\nexport function greet(name: string) {\n  return `Hello ${name}`;\n```');
    expect(summaries()).toHaveLength(1);
    const [summary] = summaries();
    expect(summary!.inline).toBeNull();
    expect(summary!.raw).toContain('### Findings not posted inline');
    expect(summary!.raw).toContain('greet() has no return type');
    expect(summary!.raw).toContain('(Bitbucket could not place it on the diff)');
    expect(summary!.raw).toContain(`Reviewed commit ${SHA1.slice(0, 12)}`);
    expect(summary!.raw).toContain('### Prompt to fix these findings with an AI coding agent');
    expect(review.publication.summaryCommentUrl).toContain(`#comment-${summary!.id}`);
    for (const comment of comments()) {
      expect(comment.raw).not.toMatch(HTML);
      expect(comment.user.uuid).toBe(w.admin.uuid);
    }
    // The resent delivery started nothing: each was posted once.
    expect(comments()).toHaveLength(3);
    expect(w.bitbucket.requests.filter((request) => request.method === 'POST' && request.path === '/repositories/acme/widgets/pullrequests/1/comments')).toHaveLength(4);
  });

  it('a push is reviewed incrementally: only the new finding is posted, the fixed one\'s comment resolved, the carried one untouched, the summary edited in place', async () => {
    const [offByOne, template] = inline();
    w.world.model.reply(reviewer([NEGATIVES]));
    w.bitbucket.openPullRequest(repo.fullName, 1, { author: w.writer, source: SHA2, destination: BASE, diff: gitDiff([MATH_FIXED, GREET, SUM]) });
    // Bitbucket's order is the reverse of git's: the new head first (facts §2).
    w.bitbucket.setDiff(repo.fullName, `${SHA2.slice(0, 12)}..${SHA1.slice(0, 12)}`, gitDiff([PUSH_FIX, SUM]), { topic: false });
    const requestsBefore = w.bitbucket.requests.length;
    const commentsBefore = comments().length;
    await w.send(repo, 'updated', 1);
    const review = await w.settled(prId, (current) => current.reviewdSha === SHA2 && current.publication.state === 'published');
    expect(review.reviewStatus).toBe('completed');
    const pushDiff = new RegExp(`^/repositories/acme/widgets/diff/${SHA2.slice(0, 12)}[0-9a-f]*\\.\\.${SHA1.slice(0, 12)}[0-9a-f]*$`);
    expect(w.bitbucket.requests.slice(requestsBefore).some((request) => pushDiff.test(request.path) && request.query.topic === 'false')).toBe(true);

    const after = inline();
    expect(after.map((comment) => comment.inline!.path)).toEqual(['src/math.ts', 'src/greet.ts', 'src/sum.ts']);
    expect(after[0]).toMatchObject({ id: offByOne!.id, resolution: expect.objectContaining({ user: expect.objectContaining({ uuid: w.admin.uuid }) }) });
    expect(after[1]).toMatchObject({ id: template!.id, resolution: null, edits: 0 });
    expect(after[2]!.raw).toContain('Negative numbers are silently dropped');
    expect(after[2]!.resolution).toBeNull();
    expect(new Set(after.map(findingOf)).size).toBe(3);
    expect(summaries()).toEqual([expect.objectContaining({ edits: 1 })]);
    expect(summaries()[0]!.raw).toContain(`Reviewed commit ${SHA2.slice(0, 12)}`);
    const newWrites = w.bitbucket.requests.slice(requestsBefore).filter((request) => request.method !== 'GET').map((request) => `${request.method} ${request.path}`);
    expect(comments()).toHaveLength(commentsBefore + 1);
    expect(newWrites).toContain(`PUT /repositories/acme/widgets/pullrequests/1/comments/${summaries()[0]!.id}`);
    expect(newWrites).toContain(`POST /repositories/acme/widgets/pullrequests/1/comments/${offByOne!.id}/resolve`);
    expect(w.statusPosts(repo, SHA2).map((status) => status.state)).toEqual(['INPROGRESS', 'SUCCESSFUL']);
    for (const comment of comments()) expect(comment.raw).not.toMatch(HTML);
  });

  it('commands: /review by a writer re-runs, by a reader nothing; /help and /ask answer as replies, once per delivery; /wrong on an inline comment is its verdict; the service\'s own comments are no commands', async () => {
    const command = async (body: string, author = w.writer, options: { parentId?: number } = {}) => {
      const comment = w.bitbucket.addComment(repo.fullName, 1, body, author, options);
      return { comment, delivered: await w.send(repo, 'comment-created', 1, author, comment) };
    };
    const repliesTo = (comment: FakeComment) => comments().filter((candidate) => candidate.parentId === comment.id);
    const statusCount = () => w.statusPosts(repo, SHA2).length;

    // A reader's /review and the service's own account's /help are ignored; so is anything carrying its markers.
    const before = statusCount();
    const byReader = await command('/review', w.reader);
    const byItself = await command('/help', w.admin);
    const marked = await command('[ai-review:summary]: #\n/help');
    await w.idle('appCommand');
    expect(statusCount()).toBe(before);
    for (const ignored of [byReader, byItself, marked]) expect(repliesTo(ignored.comment)).toEqual([]);

    // A writer's /review (the model finds what it found before): the status turns INPROGRESS (Bitbucket has no reactions), then the re-run completes.
    w.world.model.reply(reviewer([TEMPLATE, NEGATIVES]));
    await command('/review');
    await expect.poll(() => w.statusPosts(repo, SHA2).slice(before).map((status) => status.state), { timeout: 20_000, interval: 50 }).toEqual(['INPROGRESS', 'SUCCESSFUL']);
    const rerun = await w.settled(prId, (current) => current.triggeredBy === 'manual' && current.publication.state === 'published');
    expect(rerun.reviewStatus).toBe('completed');
    // The same findings: nothing posted again.
    expect(inline()).toHaveLength(3);

    // /help and /ask: replies to the command's comment; Bitbucket resending /help answers it once.
    const help = await command('/help');
    const payload = w.payload(repo, 'comment-created', 1, w.writer, help.comment);
    expect((await w.deliver(repo, 'comment-created', payload, { requestUuid: help.delivered.requestUuid, attempt: 2 })).statusCode).toBe(200);
    const ask = await command('/ask what does average() return for an empty array?');
    await expect.poll(() => [repliesTo(help.comment).length, repliesTo(ask.comment).length], { timeout: 20_000, interval: 50 }).toEqual([1, 1]);
    await w.idle('appCommand');
    expect(repliesTo(help.comment)).toHaveLength(1);
    expect(repliesTo(help.comment)[0]!.raw).toMatch(new RegExp(`^\\[ai-review:reply:${help.comment.id}\\]: #\\n`));
    expect(repliesTo(help.comment)[0]!.raw).toContain('`/review`');
    expect(repliesTo(ask.comment)[0]!.raw).toContain('An answer.');
    for (const reply of [...repliesTo(help.comment), ...repliesTo(ask.comment)]) {
      expect(reply.raw).not.toMatch(HTML);
      expect(reply.user.uuid).toBe(w.admin.uuid);
    }
    // What the service wrote came back as comment events too: none of it is a command.
    const answered = comments().length;
    for (const reply of [...repliesTo(help.comment), summaries()[0]!]) await w.send(repo, 'comment-created', 1, w.admin, reply);
    await w.idle('appCommand');
    expect(comments()).toHaveLength(answered);

    // A reply /wrong to the template finding's inline comment: its verdict.
    const template = inline().find((comment) => comment.inline!.path === 'src/greet.ts')!;
    await command('/wrong greet() is only used in tests', w.writer, { parentId: template.id });
    const judged = await w.settled(prId, (current) => current.reviewRawJSON?.comments.some((finding) => finding.file === 'src/greet.ts' && finding.verdict === 'wrong') ?? false);
    expect(judged.reviewRawJSON!.comments.filter((finding) => finding.verdict === 'wrong')).toHaveLength(1);
    await w.idle('appCommand');
    expect(comments()).toHaveLength(answered + 1);
  });

  it('at most 25 inline comments, the most severe and confident first; the rest are listed in the summary', async () => {
    const lines = Array.from({ length: 30 }, (_, index) => `+export const value${index + 1} = ${index + 1};`);
    // Line 1 is minor; lines 2 to 27 major, more confident further down: line 1 and line 2 (the least confident major) stay out.
    const findings = Array.from({ length: 27 }, (_, index) => ({ file: 'src/values.ts', line: index + 1, severity: index === 0 ? 'MINOR' : 'MAJOR', confidence: 70 + index, title: `Value ${index + 1} is wrong` }));
    w.world.model.reply(reviewer(findings));
    w.bitbucket.openPullRequest(repo.fullName, 2, { author: w.writer, source: 'b'.repeat(40), destination: BASE, diff: gitDiff([{ path: 'src/values.ts', hunk: '@@ -0,0 +1,30 @@', lines, created: true }]) });
    await w.send(repo, 'created', 2);
    const review = await w.settled(await w.prIdOf(repo, 2), (current) => current.publication.state === 'published');
    expect(review.reviewRawJSON!.comments).toHaveLength(27);
    const posted = inline(2);
    expect(posted).toHaveLength(25);
    expect(posted.map((comment) => comment.inline!.to).sort((a, b) => a! - b!)).toEqual(Array.from({ length: 25 }, (_, index) => index + 3));
    const summary = summaries(2)[0]!.raw;
    expect(summary).toContain('Value 1 is wrong (over the limit of 25 inline comments)');
    expect(summary).toContain('Value 2 is wrong (over the limit of 25 inline comments)');
    expect(w.bitbucket.repository(repo.fullName).statuses.find((status) => status.commit === 'b'.repeat(40))).toMatchObject({ state: 'SUCCESSFUL', description: '26 critical or major findings' });
  });

  it('on a connection with an access token, which cannot read permissions, every command is ignored', async () => {
    const tokenRepo = await w.connect('acme/token-only', 'access-token');
    expect(tokenRepo.commands).toBe(false);
    w.world.model.reply(reviewer([OFF_BY_ONE]));
    w.bitbucket.openPullRequest(tokenRepo.fullName, 1, { author: w.writer, source: SHA1, destination: BASE, diff: gitDiff([MATH]) });
    await w.send(tokenRepo, 'created', 1);
    const tokenPrId = await w.prIdOf(tokenRepo, 1);
    await w.settled(tokenPrId, (current) => current.publication.state === 'published');
    const written = w.bitbucket.pullRequest(tokenRepo.fullName, 1).comments;
    expect(written.map((comment) => comment.user.uuid)).toEqual([tokenRepo.account.uuid, tokenRepo.account.uuid]);
    const statuses = w.statusPosts(tokenRepo, SHA1).length;
    const before = written.length;
    const finding = written.find((comment) => comment.inline !== null)!;
    for (const [body, parentId] of [['/review', undefined], ['/help', undefined], ['/ask why?', undefined], ['/wrong not a bug', finding.id]] as const) {
      const comment = w.bitbucket.addComment(tokenRepo.fullName, 1, body, w.admin, parentId === undefined ? {} : { parentId });
      await w.send(tokenRepo, 'comment-created', 1, w.admin, comment);
    }
    await w.idle('appCommand');
    expect(w.bitbucket.pullRequest(tokenRepo.fullName, 1).comments).toHaveLength(before + 4);
    expect(w.statusPosts(tokenRepo, SHA1)).toHaveLength(statuses);
    const review = await w.settled(tokenPrId);
    expect(review.reviewRawJSON!.comments.every((comment) => (comment.verdict ?? null) === null)).toBe(true);
    expect(w.bitbucket.requests.some((request) => request.path.startsWith('/workspaces/acme/permissions/repositories/token-only') && request.query.q !== undefined)).toBe(false);
  });

});
