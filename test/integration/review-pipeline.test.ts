import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseUnifiedDiff } from '../../src/review/prepare/diff/parse-unified-diff.js';
import { createGitFixture } from '../helpers/git-fixture.js';
import { signInWithGitHub } from '../helpers/github-login.js';
import { reviewAnswer, SAMPLE_DIFF, SAMPLE_HEAD_FILES, scriptedReviewer, settledReview } from '../helpers/review-fixtures.js';
import { deliverPullRequest, reviewWorld, type ReviewWorld } from '../helpers/review-world.js';

/** Every new-file line the diff shows, per file: where a finding may sit. */
function shownLines(diff: string): Map<string, Set<number>> {
  const lines = new Map<string, Set<number>>();
  for (const file of parseUnifiedDiff(diff)) {
    const set = new Set<number>();
    for (const hunk of file.hunks) for (const line of hunk.lines) if (line.newLine !== undefined) set.add(line.newLine);
    lines.set(file.path, set);
  }
  return lines;
}

describe('the review pipeline, end to end', () => {
  let world: ReviewWorld;
  beforeAll(async () => {
    world = await reviewWorld();
    world.model.reply(scriptedReviewer());
  });
  afterAll(() => world.close());

  it('a signed webhook leads to a completed review whose findings all sit on lines of the diff', async () => {
    const author = await signInWithGitHub(world.t.app, world.github);
    const payload = await deliverPullRequest(world, author, SAMPLE_DIFF, { title: 'Average as a loop' });
    const review = await settledReview(world.t.app, author.cookie, payload.pull_request.id);

    expect(review).toMatchObject({ reviewStatus: 'completed', state: 'PROCESSING_COMPLETED', failureReason: null, mode: 'focused', reviewdSha: payload.pull_request.head.sha });
    const comments = review.reviewRawJSON!.comments;
    const shown = shownLines(SAMPLE_DIFF);
    for (const comment of comments) {
      for (let line = comment.line; line <= comment.endLine; line++) expect(shown.get(comment.file)?.has(line), `${comment.file}:${line}`).toBe(true);
    }
    // The real bug stays where it was cited; the one two lines off is re-anchored onto the hunk.
    expect(comments).toEqual([
      expect.objectContaining({ file: 'src/math.ts', line: 3, severity: 'CRITICAL' }),
      expect.objectContaining({ file: 'src/math.ts', line: 9, title: 'clamp does not check min <= max' }),
    ]);
    expect(review.reviewRawJSON!.droppedFindings).toMatchObject({ outsideDiff: 1, lowConfidence: 1, reanchored: 1 });
    expect(review.reviewRawJSON!.skippedFiles).toEqual([{ path: 'package-lock.json', reason: 'lock file' }]);
    expect(review.reviewRawJSON!.summary.overview).toContain('Skipped `package-lock.json`: lock file.');
    expect(review.reviewRawJSON!.summary.overview).not.toMatch(/skippedFiles|skippedChanges/);
    // Changed lines count deletions too: math.ts 5 + 1, the lock file 1 + 1, greet.ts 3.
    expect(review.coverage).toEqual({ files: 3, reviewableFiles: 2, lines: 11, reviewableLines: 9 });

    // The diff was read from GitHub with the author's token, and cached.
    const diffRequest = world.github.requests.find((request) => request.path === `/repos/Codertocat/Hello-World/pulls/${payload.pull_request.number}`)!;
    expect(diffRequest.headers.accept).toBe('application/vnd.github.diff');
    expect(diffRequest.headers.authorization).toMatch(/^Bearer gho_/);
    expect((await world.t.app.repos.pullRequests.find(review.id))?.diffContent).toBe(SAMPLE_DIFF);

    const list = (await world.t.app.inject({ method: 'GET', url: '/pull-request/list', headers: { cookie: author.cookie } })).json<Array<{ status: string }>>();
    expect(list[0]?.status).toBe('completed');
  });

  it('emails the author on completion: title, score, counts by severity and a link', async () => {
    const author = await signInWithGitHub(world.t.app, world.github);
    const payload = await deliverPullRequest(world, author, SAMPLE_DIFF, { title: 'Emailed review' });
    await settledReview(world.t.app, author.cookie, payload.pull_request.id);
    const user = (await world.t.app.repos.users.findById(author.userId))!;
    const email = await world.t.outbox.latest(user.email, { subject: `Review ready: Codertocat/Hello-World#${payload.pull_request.number} Emailed review` });
    expect(email.text).toContain('Score: 80');
    expect(email.text).toContain('2 findings: 1 critical, 0 warnings, 1 suggestion.');
    expect(email.text).toContain(`/pulls/${payload.pull_request.id}`);
  });

  it('sends no email when the author turned notifications off', async () => {
    const author = await signInWithGitHub(world.t.app, world.github);
    await world.t.app.inject({ method: 'PATCH', url: '/users', headers: { cookie: author.cookie }, payload: { emailNotification: false } });
    const payload = await deliverPullRequest(world, author, SAMPLE_DIFF, { title: 'Quiet review' });
    await settledReview(world.t.app, author.cookie, payload.pull_request.id);
    const user = (await world.t.app.repos.users.findById(author.userId))!;
    expect((await world.t.outbox.all()).some((email) => email.to === user.email && email.subject.includes('Quiet review'))).toBe(false);
  });

  it('the workspace’s per-mode model and prompts reach the model, system prompt first', async () => {
    const author = await signInWithGitHub(world.t.app, world.github);
    await world.t.app.inject({
      method: 'POST',
      url: '/workspace/aiSettings',
      headers: { cookie: author.cookie },
      payload: { focusedModeModel: 'platform-b', systemPrompt: 'SYSTEM-MARKER: we ship on Fridays.', foucsedModePrompt: 'FOCUSED-MARKER: look for off-by-one errors.' },
    });
    const before = world.model.completions().length;
    const payload = await deliverPullRequest(world, author, SAMPLE_DIFF);
    await settledReview(world.t.app, author.cookie, payload.pull_request.id);
    const [request] = world.model.completions().slice(before);
    expect(request!.body.model).toBe('platform-b');
    const system = request!.body.messages.find((message) => message.role === 'system')!.content as string;
    expect(system.indexOf('SYSTEM-MARKER')).toBeGreaterThanOrEqual(0);
    expect(system.indexOf('SYSTEM-MARKER')).toBeLessThan(system.indexOf('FOCUSED-MARKER'));
    const user = JSON.stringify(request!.body.messages.filter((message) => message.role === 'user'));
    expect(user).toContain('3 +  for (let i = 0; i <= values.length; i++) {');
  });

  it('a manual re-review works, in the mode asked for; deep reads the code around the change and verifies', async () => {
    const author = await signInWithGitHub(world.t.app, world.github);
    await world.t.app.inject({ method: 'POST', url: '/workspace/aiSettings', headers: { cookie: author.cookie }, payload: { deepModeModel: 'platform-b', deepModePrompt: 'DEEP-MARKER' } });
    const fixture = createGitFixture([SAMPLE_HEAD_FILES]);
    world.github.code.serveRepository('Codertocat/Hello-World', fixture.dir);
    const payload = await deliverPullRequest(world, author, SAMPLE_DIFF, { headSha: fixture.shas[0]! });
    const first = await settledReview(world.t.app, author.cookie, payload.pull_request.id);

    const before = world.model.completions().length;
    const started = await world.t.app.inject({ method: 'POST', url: `/review/${first.id}`, headers: { cookie: author.cookie }, payload: { mode: 'deep' } });
    expect(started.statusCode).toBe(200);
    expect(started.json()).toEqual({ message: 'Review started.' });
    const again = await settledReview(world.t.app, author.cookie, payload.pull_request.id);
    expect(again).toMatchObject({ reviewStatus: 'completed', mode: 'deep' });

    const calls = world.model.completions().slice(before);
    expect(calls).toHaveLength(2);
    expect(calls.map((call) => call.body.model)).toEqual(['platform-b', 'platform-b']);
    expect(JSON.stringify(calls[0]!.body.messages)).toContain('DEEP-MARKER');
    // The whole enclosing function, numbered as in the file, as read-only context for both passes.
    const scope = '<context kind=\\"scope\\" path=\\"src/math.ts\\" lines=\\"1-7\\" about=\\"enclosing function average\\" read-only>';
    expect(JSON.stringify(calls[0]!.body.messages)).toContain(scope);
    expect(JSON.stringify(calls[1]!.body.messages)).toContain('You verify the findings of a code review');
    expect(JSON.stringify(calls[1]!.body.messages)).toContain(scope);
    expect(world.github.requests.some((request) => request.path.startsWith('/repos/Codertocat/Hello-World/tarball/'))).toBe(true);
    expect(again.context).toMatchObject({ scopes: 2, snapshot: 'tarball', toolCalls: 0 });
    expect(again.reviewRawJSON!.comments.map((comment) => comment.line)).toEqual([3, 9]);
  });

  it('after a push, reviews what changed since the last review and does not repeat earlier findings', async () => {
    const author = await signInWithGitHub(world.t.app, world.github);
    const earlier = [
      { file: 'src/math.ts', line: 3, severity: 'CRITICAL', confidence: 95, title: 'Off-by-one reads past the end of the array' },
      { file: 'src/greet.ts', line: 3, severity: 'MINOR', confidence: 80, title: 'greet has no return type' },
    ];
    world.model.enqueue({ text: reviewAnswer(earlier) });
    const payload = await deliverPullRequest(world, author, SAMPLE_DIFF, { headSha: 'a'.repeat(40), updatedAt: '2025-01-01T00:00:00Z' });
    const first = await settledReview(world.t.app, author.cookie, payload.pull_request.id);
    expect(first.reviewdSha).toBe('a'.repeat(40));

    // The push adds a line to greet.ts, so its old line 3 is now line 4; math.ts is untouched.
    const push = `diff --git a/src/greet.ts b/src/greet.ts
index 3333333..6666666 100644
--- a/src/greet.ts
+++ b/src/greet.ts
@@ -1,3 +1,4 @@
 export function greet(name: string) {
+  if (!name) throw new Error('name');
   return 'Hello ' + name;
 }
`;
    world.github.setCompare('Codertocat/Hello-World', 'a'.repeat(40), 'b'.repeat(40), push);
    const before = world.model.completions().length;
    // The model repeats the earlier finding (on the line the push did not touch) and finds something new.
    world.model.enqueue({
      text: reviewAnswer([
        { file: 'src/greet.ts', line: 4, severity: 'MINOR', confidence: 80, title: 'greet has no return type' },
        { file: 'src/greet.ts', line: 2, severity: 'MINOR', confidence: 80, title: 'Throwing on an empty name is harsh' },
      ]),
    });
    await deliverPullRequest(world, author, SAMPLE_DIFF, {
      prId: payload.pull_request.id,
      number: payload.pull_request.number,
      action: 'synchronize',
      headSha: 'b'.repeat(40),
      updatedAt: '2025-01-02T00:00:00Z',
    });
    const second = await settledReview(world.t.app, author.cookie, payload.pull_request.id, { until: (review) => review.reviewdSha === 'b'.repeat(40) });

    const prompt = JSON.stringify(world.model.completions()[before]!.body.messages);
    expect(prompt).toContain("if (!name) throw new Error('name');");
    expect(prompt).not.toContain('values.length; i++');
    expect(second.reviewRawJSON!.droppedFindings).toMatchObject({ alreadyReported: 1 });
    // The new finding, and the earlier ones carried to their new lines: none twice.
    expect(second.reviewRawJSON!.comments.map((comment) => `${comment.file}:${comment.line}`).sort()).toEqual(['src/greet.ts:2', 'src/greet.ts:4', 'src/math.ts:3']);
    expect(second.reviewRawJSON!.summary.overview).toMatch(/changes since aaaaaaaaaaaa/);
  });
});
