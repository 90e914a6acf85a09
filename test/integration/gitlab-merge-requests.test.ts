import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postedFindings, pullRequests } from '../../src/db/schema/index.js';
import { createAccount, type Account } from '../helpers/accounts.js';
import type { ReviewInformation } from '../helpers/review-fixtures.js';
import { reviewWorld, type ReviewWorld } from '../helpers/review-world.js';
import type { ChatRequest, ScriptedReply } from '../fakes/fake-openai-chat.js';
import { ACCESS, FakeGitLab, type FakeDiffEntry } from '../fakes/fake-gitlab.js';
import { createGitFixture } from '../helpers/git-fixture.js';

const SHA1 = '1'.repeat(40);
const SHA2 = '2'.repeat(40);
const BASE = 'a'.repeat(40);

const entry = (path: string, diff: string, newFile = false): FakeDiffEntry => ({
  old_path: path,
  new_path: path,
  a_mode: newFile ? '0' : '100644',
  b_mode: '100644',
  diff,
  new_file: newFile,
  renamed_file: false,
  deleted_file: false,
});
/** An off-by-one on new line 3 of src/math.ts, and a new src/greet.ts. */
const MATH = entry(
  'src/math.ts',
  '@@ -1,5 +1,9 @@\n export function average(values: number[]): number {\n-  return values.reduce((a, b) => a + b, 0) / values.length;\n+  let total = 0;\n+  for (let i = 0; i <= values.length; i++) {\n+    total += values[i];\n+  }\n+  return total / values.length;\n }\n \n export function clamp(value: number, min: number, max: number): number {\n',
);
const GREET = entry('src/greet.ts', "@@ -0,0 +1,3 @@\n+export function greet(name: string) {\n+  return 'Hello ' + name;\n+}\n", true);
const MATH_FIXED = { ...MATH, diff: MATH.diff.replace('i <= values.length', 'i < values.length') };
const SUM = entry('src/sum.ts', '@@ -0,0 +1,3 @@\n+export function sum(values: number[]) {\n+  return values.filter((value) => value > 0).reduce((a, b) => a + b, 0);\n+}\n', true);
const PUSH_FIX = entry('src/math.ts', '@@ -1,5 +1,5 @@\n export function average(values: number[]): number {\n   let total = 0;\n-  for (let i = 0; i <= values.length; i++) {\n+  for (let i = 0; i < values.length; i++) {\n     total += values[i];\n   }\n');

interface Finding {
  file: string;
  line: number;
  endLine?: number;
  severity: string;
  title: string;
  replacement?: string;
}
/** The model's review answer with these findings (and a chat answer for anything else). */
const reviewer = (findings: Finding[]) => (request: ChatRequest): ScriptedReply => {
  if (!JSON.stringify(request.body.messages).includes('Answer with one JSON object')) return { text: 'An answer.' };
  return {
    text: JSON.stringify({
      summary: { overview: 'Rewrites average() as a loop.', intent: 'Refactor.', risk: 'medium', findingsCount: findings.length },
      comments: findings.map((finding) => ({ endLine: finding.line, confidence: 92, comment: `${finding.title}.`, failureScenario: 'It fails.', suggestedFix: 'Fix it.', ...finding })),
      confidence: { overall: 0.8, performance: 0.9, security: 0.9 },
      agenticFixPrompt: 'Fix it.',
    }),
  };
};

type Information = ReviewInformation & { provider: string; url: string; prId: string; publication: { state: string; reason: string | null; summaryCommentUrl: string | null } };

describe('GitLab merge requests, end to end', () => {
  let world: ReviewWorld;
  let gitlab: FakeGitLab;
  let owner: Account;
  const bot = { id: 4001, username: 'review-bot', name: 'Review bot' };
  const author = { id: 4002, username: 'dev', name: 'Dev' };
  let projectId: number;
  let secret: string;
  const fixtures: string[] = [];

  beforeAll(async () => {
    gitlab = await new FakeGitLab().start();
    world = await reviewWorld({ PUBLIC_URL: 'https://review.example.test' });
    owner = await createAccount(world.t.app, world.t.outbox);
    const project = gitlab.addProject('shop/backend');
    projectId = project.id;
    gitlab.addMember(projectId, bot, ACCESS.maintainer);
    gitlab.addMember(projectId, author, ACCESS.developer);
    const connected = await world.t.app.inject({ method: 'POST', url: '/gitlab/connections', headers: { cookie: owner.cookie }, payload: { baseUrl: gitlab.url, project: 'shop/backend', token: gitlab.issueToken(bot) } });
    expect(connected.statusCode, connected.body).toBe(201);
    secret = project.hooks[0]!.token!;
  });
  afterAll(async () => {
    await world.close();
    await gitlab.stop();
    for (const dir of fixtures) rmSync(dir, { recursive: true, force: true });
  });

  const hook = (attributes: Record<string, unknown>) => {
    const payload = JSON.parse(readFileSync(new URL('../fixtures/gitlab/merge-request-hook.json', import.meta.url), 'utf8')) as { project: object; object_attributes: object; changes: object };
    payload.project = { ...payload.project, id: projectId, path_with_namespace: 'shop/backend', web_url: `${gitlab.url}/shop/backend` };
    payload.object_attributes = { ...payload.object_attributes, iid: 5, url: `${gitlab.url}/shop/backend/-/merge_requests/5`, ...attributes };
    payload.changes = {};
    return payload;
  };
  const deliver = async (payload: object) => {
    const response = await world.t.app.inject({ method: 'POST', url: '/webhook/gitlab', headers: { 'content-type': 'application/json', 'x-gitlab-event': 'Merge Request Hook', 'x-gitlab-token': secret }, payload: JSON.stringify(payload) });
    expect(response.statusCode, response.body).toBe(200);
  };
  const information = async (prId: string, until: (review: Information) => boolean) => {
    let latest: Information | undefined;
    await expect
      .poll(async () => (latest = (await world.t.app.inject({ method: 'GET', url: `/review/information/${prId}`, headers: { cookie: owner.cookie } })).json<Information[]>()[0]), { timeout: 20_000, interval: 50 })
      .toSatisfy((review: Information | undefined) => review !== undefined && until(review));
    return latest!;
  };
  const discussions = () => gitlab.mergeRequest(projectId, 5).discussions;

  it('an opened merge request is reviewed and posted: status, one discussion per finding on its lines, one summary note; a push posts only the new finding and resolves the gone one', async () => {
    world.model.reply(
      reviewer([
        { file: 'src/math.ts', line: 3, severity: 'CRITICAL', title: 'Off-by-one reads past the end of the array' },
        { file: 'src/greet.ts', line: 1, endLine: 2, severity: 'MAJOR', title: 'Use a template literal', replacement: 'export function greet(name: string) {\n  return `Hello ${name}`;' },
      ]),
    );
    gitlab.openMergeRequest(projectId, 5, { author, diffRefs: { base_sha: BASE, start_sha: BASE, head_sha: SHA1 }, diffs: [MATH, GREET] });
    await deliver(hook({ action: 'open', last_commit: { id: SHA1 }, updated_at: '2026-02-01T10:00:00Z' }));
    const [row] = await world.t.app.db.select().from(pullRequests).where(eq(pullRequests.repositoryId, String(projectId)));
    const prId = row!.id;

    const first = await information(prId, (review) => review.reviewStatus !== 'pending' && review.publication.state === 'published');
    expect(first).toMatchObject({ prId, provider: 'gitlab', url: `${gitlab.url}/shop/backend/-/merge_requests/5`, reviewStatus: 'completed' });
    // GitLab's hook carries no counts: they come from the diff the run read.
    expect(first).toMatchObject({ prAddtions: 8, prDeletions: 1, changedFiles: 2 });
    // The list shows it as a merge request, named by its UUID.
    const list = (await world.t.app.inject({ method: 'GET', url: '/pull-request/list', headers: { cookie: owner.cookie } })).json<Array<{ prId: string; provider: string; url: string }>>();
    expect(list).toContainEqual(expect.objectContaining({ prId, provider: 'gitlab', url: `${gitlab.url}/shop/backend/-/merge_requests/5` }));

    // The commit status: running, then success with the count of critical and major findings.
    const statuses = gitlab.project(projectId).statuses.filter((status) => status.sha === SHA1);
    expect(statuses.map((status) => [status.status, status.name, status.target_url])).toEqual([
      ['running', 'AI review', `https://review.example.test/pulls/${prId}`],
      ['success', 'AI review', `https://review.example.test/pulls/${prId}`],
    ]);
    expect(statuses[1]!.description).toBe('2 critical or major findings');

    // One discussion per finding, placed where GitLab accepts it (the fake refuses anything else).
    const posted = discussions().filter((discussion) => discussion.notes[0]!.type === 'DiffNote');
    expect(posted.map((discussion) => [discussion.notes[0]!.position!.new_path, discussion.notes[0]!.position!.new_line])).toEqual([
      ['src/math.ts', 3],
      ['src/greet.ts', 2],
    ]);
    expect(posted[0]!.notes[0]!.body).toMatch(/^<!-- ai-review:finding:[0-9a-f]{16} -->\n\n\*\*CRITICAL\*\* · Off-by-one/);
    expect(posted[1]!.notes[0]!.position!.line_range).toMatchObject({ start: { new_line: 1 }, end: { new_line: 2 } });
    expect(posted[1]!.notes[0]!.body).toContain('```suggestion:-1+0\nexport function greet(name: string) {\n  return `Hello ${name}`;\n```');
    const summaries = () => discussions().flatMap((discussion) => discussion.notes).filter((note) => note.body.startsWith('<!-- ai-review:summary -->'));
    expect(summaries()).toHaveLength(1);
    expect(summaries()[0]!.body).toContain(`Reviewed commit ${SHA1}`);
    expect(first.publication.summaryCommentUrl).toBe(`${gitlab.url}/shop/backend/-/merge_requests/5#note_${summaries()[0]!.id}`);
    // Every call went with the connection's token.
    expect(gitlab.requests.filter((request) => request.path.startsWith('/api/v4/projects/')).every((request) => typeof request.headers['private-token'] === 'string')).toBe(true);
    // The publication read the discussions once: what was already posted, the summary's note among them.
    const discussionReads = () => gitlab.requests.filter((request) => request.method === 'GET' && request.path === `/api/v4/projects/${projectId}/merge_requests/5/discussions`).length;
    expect(discussionReads()).toBe(1);

    // A crash between posting and recording: the off-by-one's thread is on GitLab but not in the database.
    const findingOf = (discussion: { notes: Array<{ body: string }> }) => /ai-review:finding:([0-9a-f]{16})/.exec(discussion.notes[0]!.body)![1]!;
    const offByOne = findingOf(posted[0]!);
    await world.t.app.db.delete(postedFindings).where(and(eq(postedFindings.pullRequestId, prId), eq(postedFindings.findingId, offByOne)));

    // A push: the fix and a new file; only the new finding is posted, the fixed one's discussion resolved (found on GitLab), the summary edited.
    world.model.reply(reviewer([{ file: 'src/sum.ts', line: 2, severity: 'MAJOR', title: 'Negative numbers are silently dropped' }]));
    gitlab.openMergeRequest(projectId, 5, { author, diffRefs: { base_sha: BASE, start_sha: BASE, head_sha: SHA2 }, diffs: [MATH_FIXED, GREET, SUM] });
    gitlab.setCompare(projectId, SHA1, SHA2, [PUSH_FIX, SUM]);
    await deliver(hook({ action: 'update', oldrev: SHA1, last_commit: { id: SHA2 }, updated_at: '2026-02-01T10:05:00Z' }));
    await information(prId, (review) => review.reviewdSha === SHA2 && review.publication.state === 'published');
    const after = discussions().filter((discussion) => discussion.notes[0]!.type === 'DiffNote');
    expect(after.map((discussion) => discussion.notes[0]!.position!.new_path)).toEqual(['src/math.ts', 'src/greet.ts', 'src/sum.ts']);
    expect(after[0]!.notes.every((note) => note.resolved)).toBe(true);
    expect(after[1]!.notes[0]!.resolved).toBe(false);
    expect(summaries()).toEqual([expect.objectContaining({ edits: 1 })]);
    expect(summaries()[0]!.body).toContain(`Reviewed commit ${SHA2}`);
    const rows = await world.t.app.db.select().from(postedFindings).where(eq(postedFindings.pullRequestId, prId));
    expect(rows.find((row) => row.findingId === offByOne)).toMatchObject({ commentId: posted[0]!.notes[0]!.id, resolvedAt: expect.any(Date) });
    expect(rows.filter((row) => row.resolvedAt === null).map((row) => row.findingId).sort()).toEqual([findingOf(after[1]!), findingOf(after[2]!)].sort());
    // Resolving a gone discussion is a write of its own: the summary's note is read again after it.
    expect(discussionReads()).toBe(3);
  });

  it('commands in notes: a Developer is answered once with eyes; a Guest, a bot and the service itself are ignored; /wrong in a finding\'s discussion is its verdict', async () => {
    const guest = { id: 4003, username: 'guest', name: 'Guest' };
    const robot = { id: 4004, username: 'project_bot', name: 'Bot', bot: true };
    gitlab.addMember(projectId, guest, ACCESS.guest);
    gitlab.addMember(projectId, robot, ACCESS.developer);
    const noteHook = (note: { id: number; body: string }, user: { id: number; username: string }, discussionId: string | null = null) => {
      const payload = JSON.parse(readFileSync(new URL('../fixtures/gitlab/note-hook-merge-request.json', import.meta.url), 'utf8')) as { project: object; object_attributes: object; merge_request: object; user: object };
      payload.project = { ...payload.project, id: projectId, path_with_namespace: 'shop/backend', web_url: `${gitlab.url}/shop/backend` };
      payload.user = { ...payload.user, id: user.id, username: user.username };
      payload.object_attributes = { ...payload.object_attributes, id: note.id, note: note.body, author_id: user.id, discussion_id: discussionId, project_id: projectId };
      payload.merge_request = { ...payload.merge_request, iid: 5, target_project_id: projectId, source_project_id: projectId };
      return payload;
    };
    const deliverNote = async (payload: object) => {
      const response = await world.t.app.inject({ method: 'POST', url: '/webhook/gitlab', headers: { 'content-type': 'application/json', 'x-gitlab-event': 'Note Hook', 'x-gitlab-token': secret }, payload: JSON.stringify(payload) });
      expect(response.statusCode, response.body).toBe(200);
    };
    const idle = async () => {
      await expect.poll(async () => {
        const counts = await world.t.app.queue.counts('appCommand');
        return counts.waiting + counts.active;
      }, { timeout: 20_000, interval: 50 }).toBe(0);
    };
    const awardsOn = (noteId: number) => gitlab.mergeRequest(projectId, 5).awards.filter((award) => award.noteId === noteId).map((award) => [award.name, award.user.id]);
    const repliesTo = (noteId: number) => discussions().flatMap((discussion) => discussion.notes).filter((note) => note.body.startsWith(`<!-- ai-review:reply:${noteId} -->`));

    const byGuest = gitlab.addNote(projectId, 5, '/help', guest);
    const byBot = gitlab.addNote(projectId, 5, '/help', robot);
    const byDeveloper = gitlab.addNote(projectId, 5, '/help', author);
    await deliverNote(noteHook(byGuest, guest));
    await deliverNote(noteHook(byBot, robot));
    await deliverNote(noteHook(byDeveloper, author));
    await deliverNote(noteHook(byDeveloper, author)); // GitLab's resend: answered once
    await expect.poll(() => repliesTo(byDeveloper.id).length, { timeout: 20_000, interval: 50 }).toBe(1);
    await idle();
    expect(repliesTo(byDeveloper.id)[0]!.body).toContain('`/review`');
    expect(repliesTo(byDeveloper.id)[0]!.body).toContain('@review-bot <question>');
    expect(awardsOn(byDeveloper.id)).toEqual([['eyes', bot.id]]);
    for (const ignored of [byGuest, byBot]) {
      expect(repliesTo(ignored.id)).toEqual([]);
      expect(awardsOn(ignored.id)).toEqual([]);
    }

    // A verdict by reply in the greet finding's discussion (GitLab sends its discussion_id).
    const greet = discussions().find((discussion) => discussion.notes[0]!.position?.new_path === 'src/greet.ts')!;
    const reply = await fetch(`${gitlab.url}/api/v4/projects/${projectId}/merge_requests/5/discussions/${greet.id}/notes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'private-token': gitlab.issueToken(author) },
      body: JSON.stringify({ body: '/wrong greet is only used in tests' }),
    }).then((response) => response.json() as Promise<{ id: number }>);
    await deliverNote(noteHook({ id: reply.id, body: '/wrong greet is only used in tests' }, author, greet.id));
    const [row] = await world.t.app.db.select().from(pullRequests).where(eq(pullRequests.prNumber, 5));
    const withVerdict = await information(row!.id, (review) => review.reviewRawJSON?.comments.some((comment) => comment.file === 'src/greet.ts' && comment.verdict === 'wrong') ?? false);
    expect(withVerdict.reviewRawJSON!.comments.filter((comment) => comment.verdict === 'wrong')).toHaveLength(1);
    // The verdict is stored before the acknowledgement is posted: wait for the award, not only the verdict.
    await expect.poll(() => awardsOn(reply.id), { timeout: 20_000, interval: 50 }).toEqual([['eyes', bot.id]]);
  });

  it('a draft is reviewed when the target branch\'s .ai-review.yml says drafts: true (read at diff_refs.base_sha); a 429 while posting waits and retries through the queue', async () => {
    const base = 'c'.repeat(40);
    gitlab.setFile(projectId, base, '.ai-review.yml', 'reviews:\n  drafts: true\n  mode: quick\n');
    world.model.reply(reviewer([{ file: 'src/math.ts', line: 3, severity: 'MAJOR', title: 'Off-by-one' }]));
    gitlab.openMergeRequest(projectId, 7, { author, draft: true, diffRefs: { base_sha: base, start_sha: base, head_sha: SHA1 }, diffs: [MATH] });
    gitlab.fail(/^POST .*merge_requests\/7\/discussions$/, 429, { times: 1, headers: { 'retry-after': '0' }, body: { message: 'Retry later' } });
    await deliver(hook({ action: 'open', iid: 7, draft: true, work_in_progress: true, url: `${gitlab.url}/shop/backend/-/merge_requests/7`, last_commit: { id: SHA1 } }));
    const [row] = await world.t.app.db.select().from(pullRequests).where(eq(pullRequests.prNumber, 7));
    const review = await information(row!.id, (current) => current.reviewStatus === 'completed' && current.publication.state === 'published');
    expect(review.mode).toBe('quick');
    const posted = gitlab.mergeRequest(projectId, 7).discussions.filter((discussion) => discussion.notes[0]!.type === 'DiffNote');
    expect(posted).toHaveLength(1);
    expect(gitlab.requests.filter((request) => request.method === 'POST' && request.path.endsWith('/merge_requests/7/discussions')).length).toBeGreaterThanOrEqual(2);
  });

  it('the reviewer reads the merge request\'s code from GitLab\'s archive: the whole enclosing method and the called definition are in the prompt', async () => {
    const cart = ['from .pricing import tax_for', '', '', 'class Cart:', '    def __init__(self, region):', '        self.region = region', '        self.items = []', '', '    def total(self):', '        """What the customer pays."""', '        if not self.items:', '            return 0', '        subtotal = sum(item.price for item in self.items)', '        return subtotal', ''].join('\n');
    const fixture = createGitFixture([
      { 'shop/__init__.py': '', 'shop/pricing.py': 'def tax_for(region, amount):\n    """The tax due on an amount in a region."""\n    return amount * 0.2\n', 'shop/cart.py': cart },
      { 'shop/cart.py': cart.replace('        return subtotal\n', '        return subtotal + tax_for(self.region, subtotal)\n') },
    ]);
    fixtures.push(fixture.dir);
    gitlab.setRepository(projectId, fixture.dir);
    const [base, head] = fixture.shas as [string, string];
    const diff = execFileSync('git', ['diff', base, head, '--', 'shop/cart.py'], { cwd: fixture.dir, encoding: 'utf8' });
    world.model.reply(reviewer([]));
    const before = world.model.completions().length;
    gitlab.openMergeRequest(projectId, 8, { author, diffRefs: { base_sha: base, start_sha: base, head_sha: head }, diffs: [entry('shop/cart.py', diff.slice(diff.indexOf('@@')))] });
    await deliver(hook({ action: 'open', iid: 8, url: `${gitlab.url}/shop/backend/-/merge_requests/8`, last_commit: { id: head } }));
    const [row] = await world.t.app.db.select().from(pullRequests).where(eq(pullRequests.prNumber, 8));
    const review = await information(row!.id, (current) => current.reviewStatus === 'completed');
    expect(review.context).toMatchObject({ snapshot: 'tarball' });
    const prompt = JSON.stringify(world.model.completions().slice(before).map((call) => call.body.messages));
    expect(prompt).toContain('def total(self):');
    expect(prompt).toContain('What the customer pays.');
    expect(prompt).toContain('def tax_for(region, amount):');
  });

  it('a refused token marks the connection broken, shown in the list and on the review; the review stays completed', async () => {
    world.model.reply(reviewer([{ file: 'src/math.ts', line: 3, severity: 'CRITICAL', title: 'Off-by-one' }]));
    gitlab.fail(/^POST .*\/statuses\//, 401, { times: 1, body: { message: '401 Unauthorized' } });
    gitlab.openMergeRequest(projectId, 6, { author, diffRefs: { base_sha: BASE, start_sha: BASE, head_sha: SHA1 }, diffs: [MATH] });
    await deliver({ ...hook({ action: 'open', iid: 6, url: `${gitlab.url}/shop/backend/-/merge_requests/6`, last_commit: { id: SHA1 } }) });
    const [row] = await world.t.app.db.select().from(pullRequests).where(eq(pullRequests.prNumber, 6));
    const review = await information(row!.id, (current) => current.reviewStatus !== 'pending' && current.publication.state === 'failed');
    expect(review.reviewStatus).toBe('completed');
    expect(review.publication.reason).toContain('401 Unauthorized');
    const connections = (await world.t.app.inject({ method: 'GET', url: '/gitlab/connections', headers: { cookie: owner.cookie } })).json<Array<{ status: string; reason: string }>>();
    expect(connections).toEqual([expect.objectContaining({ status: 'broken', reason: '401 Unauthorized' })]);
  });
});
