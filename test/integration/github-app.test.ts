import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInWithGitHub, githubUser } from '../helpers/github-login.js';
import {
  appModel,
  appPullRequest,
  appWorld,
  commentPayload,
  deliver,
  installationPayload,
  member,
  newRepo,
  publication,
  PUBLIC_URL,
  type AppWorld,
} from '../helpers/github-app-world.js';
import { SAMPLE_DIFF, SAMPLE_FINDINGS } from '../helpers/review-fixtures.js';

const SHA1 = '1'.repeat(40);
const SHA2 = '2'.repeat(40);

/** The push: fixes the loop bound (line 3 of math.ts) and adds src/sum.ts. */
const PUSH_DIFF = `diff --git a/src/math.ts b/src/math.ts
--- a/src/math.ts
+++ b/src/math.ts
@@ -1,5 +1,5 @@
 export function average(values: number[]): number {
   let total = 0;
-  for (let i = 0; i <= values.length; i++) {
+  for (let i = 0; i < values.length; i++) {
     total += values[i];
   }
diff --git a/src/sum.ts b/src/sum.ts
new file mode 100644
--- /dev/null
+++ b/src/sum.ts
@@ -0,0 +1,3 @@
+export function sum(values: number[]) {
+  return values.filter((value) => value > 0).reduce((a, b) => a + b, 0);
+}
`;
const FULL_DIFF_AFTER_PUSH = `${SAMPLE_DIFF.replace('i <= values.length', 'i < values.length')}diff --git a/src/sum.ts b/src/sum.ts
new file mode 100644
--- /dev/null
+++ b/src/sum.ts
@@ -0,0 +1,3 @@
+export function sum(values: number[]) {
+  return values.filter((value) => value > 0).reduce((a, b) => a + b, 0);
+}
`;

/** A push that adds two lines above both findings (moving them) and one inside clamp, next to its finding. */
const MOVING_PUSH_DIFF = `diff --git a/src/math.ts b/src/math.ts
--- a/src/math.ts
+++ b/src/math.ts
@@ -1,3 +1,5 @@
+/** Arithmetic helpers. */
+
 export function average(values: number[]): number {
   let total = 0;
   for (let i = 0; i <= values.length; i++) {
@@ -8,3 +10,4 @@
 
 export function clamp(value: number, min: number, max: number): number {
+  if (Number.isNaN(value)) return min;
   return Math.min(Math.max(value, min), max);
`;
const MOVED_FULL_DIFF = `diff --git a/src/math.ts b/src/math.ts
--- a/src/math.ts
+++ b/src/math.ts
@@ -1,6 +1,13 @@
+/** Arithmetic helpers. */
+
 export function average(values: number[]): number {
-  return values.reduce((a, b) => a + b, 0) / values.length;
+  let total = 0;
+  for (let i = 0; i <= values.length; i++) {
+    total += values[i];
+  }
+  return total / values.length;
 }
 
 export function clamp(value: number, min: number, max: number): number {
+  if (Number.isNaN(value)) return min;
   return Math.min(Math.max(value, min), max);
`;

describe('the GitHub App: reviews posted in the pull request', () => {
  let world: AppWorld;
  beforeAll(async () => {
    world = await appWorld();
  });
  afterAll(() => world.close());

  /** A signed-in installer and an installation of a new repository. */
  async function installedRepository(installationId: number) {
    const { t, github } = world;
    const installer = await signInWithGitHub(t.app, github);
    const repo = newRepo();
    github.install(installationId, [repo.full_name]);
    await deliver(t.app, 'installation', installationPayload('created', installationId, installer.githubId, [repo]));
    return { installer, repo };
  }

  /** The above, and a pull request through it, reviewed and published. */
  async function publishedPullRequest(installationId: number, number: number, findings: Parameters<typeof appModel>[0]) {
    const { t, github } = world;
    const { installer, repo } = await installedRepository(installationId);
    world.model.reply(appModel(findings));
    const payload = appPullRequest(installationId, repo, githubUser().id, { headSha: SHA1, number });
    github.openPull(repo.full_name, number, SHA1, SAMPLE_DIFF);
    await deliver(t.app, 'pull_request', payload);
    const prId = payload.pull_request.id;
    await publication(t.app, installer.cookie, prId, (review) => review.publication.state === 'published');
    return { installer, repo, prId };
  }

  it('an installation, then a pull request by an unregistered author: a check run, one review with inline comments on diff lines, one summary; no duplicates on redelivery or /review; a push posts only the new finding and resolves the gone one', async () => {
    const { t, github } = world;
    const installer = await signInWithGitHub(t.app, github);
    const repo = newRepo();
    const installationId = 4_100_001;
    github.install(installationId, [repo.full_name]);
    expect((await deliver(t.app, 'installation', installationPayload('created', installationId, installer.githubId, [repo]))).statusCode).toBe(200);
    const listed = await t.app.inject({ method: 'GET', url: '/github/installations', headers: { cookie: installer.cookie } });
    expect(listed.json()).toEqual([expect.objectContaining({ id: installationId, account: { login: `org-${installationId}`, type: 'Organization' }, repositorySelection: 'selected', repositories: [repo.full_name], suspended: false })]);

    world.model.reply(appModel(SAMPLE_FINDINGS));
    const payload = appPullRequest(installationId, repo, githubUser().id, { headSha: SHA1, number: 12 });
    github.openPull(repo.full_name, 12, SHA1, SAMPLE_DIFF);
    const deliveryId = 'delivery-app-1';
    expect((await deliver(t.app, 'pull_request', payload, deliveryId)).statusCode).toBe(200);

    const prId = payload.pull_request.id;
    const first = await publication(t.app, installer.cookie, prId, (review) => review.publication.state === 'published');
    expect(first.reviewStatus).toBe('completed');

    // The check run: completed, neutral (a CRITICAL finding is open), pointing at the review page.
    const check = github.checkRuns.find((run) => run.repository === repo.full_name && run.head_sha === SHA1)!;
    expect(check).toMatchObject({ name: 'AI review', status: 'completed', conclusion: 'neutral', details_url: `${PUBLIC_URL}/pulls/${prId}` });
    expect(github.checkRuns.filter((run) => run.repository === repo.full_name && run.head_sha === SHA1)).toHaveLength(1);
    // It was created in progress when the review started, then completed in place.
    const created = github.requests.find((request) => request.method === 'POST' && request.path === `/repos/${repo.full_name}/check-runs`)!;
    expect(JSON.parse(created.body)).toMatchObject({ name: 'AI review', head_sha: SHA1, status: 'in_progress' });

    // One review, its inline comments on lines of the diff (the fake refuses anything else), severest first.
    const reviews = github.submittedReviews(repo.full_name, 12);
    expect(reviews).toHaveLength(1);
    expect(reviews[0]!.commit_id).toBe(SHA1);
    const inline = github.inlineComments(repo.full_name, 12);
    expect(inline.map((comment) => [comment.path, comment.line, comment.side])).toEqual([
      ['src/math.ts', 3, 'RIGHT'],
      ['src/math.ts', 9, 'RIGHT'],
    ]);
    expect(inline[0]!.body).toMatch(/^<!-- ai-review:finding:[0-9a-f]{16} -->\n\n\*\*CRITICAL\*\* · Off-by-one reads past the end of the array/);
    expect(inline[0]!.body).toContain('**Failure scenario:**');
    expect(inline[0]!.body).not.toContain('```suggestion');
    const summaries = github.pull(repo.full_name, 12).issueComments.filter((comment) => comment.body.startsWith('<!-- ai-review:summary -->'));
    expect(summaries).toHaveLength(1);
    expect(summaries[0]!.body).toContain(`Reviewed commit ${SHA1}`);
    expect(summaries[0]!.body).toContain(`[Open the review](${PUBLIC_URL}/pulls/${prId})`);
    expect(summaries[0]!.body).toContain('### Files reviewed\n\n- `src/math.ts`: 2 findings\n- `src/greet.ts`: no findings');
    expect(summaries[0]!.body).toContain('### Skipped files\n\n- `package-lock.json`: lock file');
    expect(summaries[0]!.body).toContain('Skipped `package-lock.json`: lock file.');
    expect(summaries[0]!.body).toContain('<details><summary>Prompt to fix these findings');
    expect(first.publication).toMatchObject({ state: 'published', reason: null, reviewUrl: reviews[0]!.html_url, summaryCommentUrl: summaries[0]!.html_url, checkRunUrl: check.html_url });
    // The report shows what a user sees.
    console.log(`INLINE COMMENT BODY:\n${inline[0]!.body}\n\nSUMMARY COMMENT BODY:\n${summaries[0]!.body}`);

    // Every repository call used an installation token.
    const repositoryCalls = github.requests.filter((request) => request.path.startsWith(`/repos/${repo.full_name}/`));
    expect(repositoryCalls.length).toBeGreaterThan(5);
    for (const call of repositoryCalls) expect(call.headers.authorization).toMatch(/^(token|Bearer) ghs_/i);

    // A redelivery adds nothing.
    expect((await deliver(t.app, 'pull_request', payload, deliveryId)).statusCode).toBe(200);
    // /review of the same head: a full new run, published, and nothing posted twice.
    const command = github.addIssueComment(repo.full_name, 12, '/review deep', member());
    expect((await deliver(t.app, 'issue_comment', commentPayload(installationId, repo, 12, command))).statusCode).toBe(200);
    await publication(t.app, installer.cookie, prId, (review) => review.triggeredBy === 'manual' && review.mode === 'deep' && review.publication.state === 'published');
    expect(github.pull(repo.full_name, 12).reactions).toContainEqual(expect.objectContaining({ commentId: command.id, content: 'eyes' }));
    expect(github.submittedReviews(repo.full_name, 12)).toHaveLength(1);
    expect(github.inlineComments(repo.full_name, 12)).toHaveLength(2);
    expect(github.pull(repo.full_name, 12).issueComments.filter((comment) => comment.user.type === 'Bot')).toHaveLength(1);

    // A push: only the new finding is posted, the fixed one's thread is resolved, the summary edited in place.
    world.model.reply(appModel([{ file: 'src/sum.ts', line: 2, severity: 'MAJOR', confidence: 90, title: 'Negative numbers are silently dropped' }]));
    github.openPull(repo.full_name, 12, SHA2, FULL_DIFF_AFTER_PUSH);
    github.setCompare(repo.full_name, SHA1, SHA2, PUSH_DIFF);
    const push = appPullRequest(installationId, repo, payload.pull_request.user.id, { action: 'synchronize', headSha: SHA2, number: 12, prId, updatedAt: new Date(Date.now() + 60_000).toISOString() });
    expect((await deliver(t.app, 'pull_request', push)).statusCode).toBe(200);
    await publication(t.app, installer.cookie, prId, (review) => review.reviewdSha === SHA2 && review.publication.state === 'published');

    const after = github.submittedReviews(repo.full_name, 12);
    expect(after).toHaveLength(2);
    expect(after[1]!.comments.map((comment) => [comment.path, comment.line])).toEqual([['src/sum.ts', 2]]);
    expect(github.threadOf(repo.full_name, 12, inline[0]!.id)?.resolved).toBe(true);
    expect(github.threadOf(repo.full_name, 12, inline[1]!.id)?.resolved).toBe(false);
    const summary = github.pull(repo.full_name, 12).issueComments.filter((comment) => comment.user.type === 'Bot');
    expect(summary).toHaveLength(1);
    expect(summary[0]!.edits).toBeGreaterThanOrEqual(1);
    expect(summary[0]!.body).toContain(`Reviewed commit ${SHA2}`);
    expect(github.checkRuns.find((run) => run.repository === repo.full_name && run.head_sha === SHA2)).toMatchObject({ status: 'completed', conclusion: 'neutral' });
  });

  it('a push that moves a carried finding, which the model reports again on lines next to the push: the same id, nothing posted again, its thread left open', async () => {
    const { t, github } = world;
    const { installer, repo, prId } = await publishedPullRequest(4_100_009, 14, SAMPLE_FINDINGS);
    const before = await publication(t.app, installer.cookie, prId, (review) => review.publication.state === 'published');
    const clamp = before.reviewRawJSON!.comments.find((comment) => comment.title.startsWith('clamp'))!;
    const threads = github.inlineComments(repo.full_name, 14);
    expect(threads).toHaveLength(2);

    // Two lines added above move clamp (9 → 11); a line added inside it (12) is next to the finding.
    world.model.reply(appModel([{ file: 'src/math.ts', line: 11, endLine: 12, severity: 'MINOR', confidence: 80, title: 'clamp does not check min <= max' }]));
    github.openPull(repo.full_name, 14, SHA2, MOVED_FULL_DIFF);
    github.setCompare(repo.full_name, SHA1, SHA2, MOVING_PUSH_DIFF);
    const push = appPullRequest(4_100_009, repo, githubUser().id, { action: 'synchronize', headSha: SHA2, number: 14, prId, updatedAt: new Date(Date.now() + 60_000).toISOString() });
    expect((await deliver(t.app, 'pull_request', push)).statusCode).toBe(200);
    const after = await publication(t.app, installer.cookie, prId, (review) => review.reviewdSha === SHA2 && review.publication.state === 'published');

    const ids = after.reviewRawJSON!.comments.map((comment) => comment.id).sort();
    expect(ids).toEqual(before.reviewRawJSON!.comments.map((comment) => comment.id).sort());
    expect(after.reviewRawJSON!.comments.find((comment) => comment.id === clamp.id)).toMatchObject({ line: 11, endLine: 12 });
    expect(ids.some((id) => id.includes('-'))).toBe(false);
    expect(github.submittedReviews(repo.full_name, 14)).toHaveLength(1);
    expect(github.inlineComments(repo.full_name, 14)).toHaveLength(2);
    for (const thread of threads) expect(github.threadOf(repo.full_name, 14, thread.id)?.resolved).toBe(false);
  });

  it('commands: /help and /ask are answered once each; NONE, bots and the App itself are ignored; a re-requested check reviews that commit again', async () => {
    const { t, github } = world;
    const installationId = 4_100_002;
    const { installer, repo, prId } = await publishedPullRequest(installationId, 3, []);
    expect(github.checkRuns.find((run) => run.repository === repo.full_name && run.head_sha === SHA1)).toMatchObject({ conclusion: 'success' });
    // No finding: no review, but the summary and the check.
    expect(github.submittedReviews(repo.full_name, 3)).toHaveLength(0);

    const ignored = [
      { comment: github.addIssueComment(repo.full_name, 3, '/help', { login: 'drive-by', id: 1, type: 'User' }), association: 'NONE' },
      { comment: github.addIssueComment(repo.full_name, 3, '/help', { login: 'dependabot[bot]', id: 2, type: 'Bot' }), association: 'MEMBER' },
      { comment: github.addIssueComment(repo.full_name, 3, '/help', github.bot), association: 'MEMBER' },
    ];
    for (const { comment, association } of ignored) expect((await deliver(t.app, 'issue_comment', commentPayload(installationId, repo, 3, comment, association))).statusCode).toBe(200);

    const help = github.addIssueComment(repo.full_name, 3, '/help', member());
    const helpDelivery = commentPayload(installationId, repo, 3, help, 'OWNER');
    // GitHub redelivers with the same delivery id.
    await deliver(t.app, 'issue_comment', helpDelivery, 'help-delivery');
    await deliver(t.app, 'issue_comment', helpDelivery, 'help-delivery');
    const ask = github.addIssueComment(repo.full_name, 3, `@${github.slug} why is the average wrong?`, member());
    await deliver(t.app, 'issue_comment', commentPayload(installationId, repo, 3, ask, 'COLLABORATOR'));

    const replies = () => github.pull(repo.full_name, 3).issueComments.filter((comment) => comment.user.type === 'Bot' && comment.body.startsWith('<!-- ai-review:reply:'));
    await expect.poll(() => replies().length, { timeout: 15_000 }).toBe(2);
    expect(replies().find((reply) => reply.body.includes(`reply:${help.id}`))!.body).toContain('`/review`');
    expect(replies().find((reply) => reply.body.includes(`reply:${ask.id}`))!.body).toContain('The loop reads one element past the end of the array.');
    const reactions = github.pull(repo.full_name, 3).reactions;
    expect(reactions.filter((reaction) => reaction.commentId === help.id)).toHaveLength(1);
    for (const { comment } of ignored) expect(reactions.some((reaction) => reaction.commentId === comment.id)).toBe(false);
    // The question is a conversation of the owner, connected to the pull request.
    const threads = await t.app.inject({ method: 'GET', url: '/conversation', headers: { cookie: installer.cookie } });
    expect(threads.json<unknown[]>()).toHaveLength(1);
    const stored = await t.app.repos.conversations.findOwned(installer.userId, threads.json<Array<{ id: string }>>()[0]!.id);
    expect(stored?.connectedPrId).toBe((await t.app.repos.pullRequests.findOwnedBySelector(installer.userId, prId))!.id);

    // Re-run from GitHub's checks tab.
    const rerun = { action: 'rerequested', check_run: { name: 'AI review', head_sha: SHA1, app: { id: Number(github.appId) }, pull_requests: [{ number: 3 }] }, repository: repo, installation: { id: installationId } };
    expect((await deliver(t.app, 'check_run', rerun)).statusCode).toBe(200);
    await publication(t.app, installer.cookie, prId, (review) => review.triggeredBy === 'manual' && review.publication.state === 'published');
    expect(github.pull(repo.full_name, 3).issueComments.filter((comment) => comment.user.type === 'Bot' && comment.body.startsWith('<!-- ai-review:summary'))).toHaveLength(1);
  });

  it('a /wrong reply to an inline comment is the verdict of decisions.md §10: shown on the finding, its note a learning, the finding not posted again; a reply by NONE changes nothing', async () => {
    const { t, github } = world;
    const installationId = 4_100_006;
    const { installer, repo, prId } = await publishedPullRequest(installationId, 21, SAMPLE_FINDINGS);
    const [critical] = github.inlineComments(repo.full_name, 21);
    const findingId = /ai-review:finding:([0-9a-f-]+)/.exec(critical!.body)![1]!;

    const reply = (body: string, association: string, id: number) => ({
      action: 'created',
      comment: { id, in_reply_to_id: critical!.id, body, user: member(), author_association: association },
      pull_request: { number: 21 },
      repository: repo,
      installation: { id: installationId },
    });
    expect((await deliver(t.app, 'pull_request_review_comment', reply('/wrong', 'NONE', 9_100_001))).statusCode).toBe(200);
    expect((await deliver(t.app, 'pull_request_review_comment', reply('/wrong values is never empty: the caller checks it', 'OWNER', 9_100_002))).statusCode).toBe(200);

    const information = await t.app.inject({ method: 'GET', url: `/review/information/${prId}`, headers: { cookie: installer.cookie } });
    const comments = information.json<Array<{ reviewRawJSON: { comments: Array<{ id: string; verdict: string | null }> } }>>()[0]!.reviewRawJSON.comments;
    expect(comments.find((comment) => comment.id === findingId)?.verdict).toBe('wrong');
    const learnings = await t.app.inject({ method: 'GET', url: `/review/learnings?repo=${repo.full_name}`, headers: { cookie: installer.cookie } });
    expect(learnings.json()).toEqual([expect.objectContaining({ repositoryName: repo.full_name, note: 'values is never empty: the caller checks it' })]);

    // The same finding again on a re-run: suppressed before it is stored or posted.
    const command = github.addIssueComment(repo.full_name, 21, '/review', member());
    await deliver(t.app, 'issue_comment', commentPayload(installationId, repo, 21, command));
    const rerun = await publication(t.app, installer.cookie, prId, (review) => review.triggeredBy === 'manual' && review.publication.state === 'published');
    expect(rerun.reviewRawJSON!.comments.map((comment) => comment.id)).not.toContain(findingId);
    expect(github.inlineComments(repo.full_name, 21).filter((comment) => comment.body.includes(findingId))).toHaveLength(1);
  });

  it('a line GitHub refuses goes to the summary and the rest is posted; a secondary rate limit waits as asked, then succeeds', async () => {
    const { t, github } = world;
    const installationId = 4_100_003;
    const { installer, repo } = await installedRepository(installationId);
    world.model.reply(appModel(SAMPLE_FINDINGS));
    github.refusedLines.add('src/math.ts:9');
    github.rateLimit = { remaining: 1, pattern: /^POST .*\/pulls\/\d+\/reviews$/, retryAfterSeconds: 1 };
    const payload = appPullRequest(installationId, repo, githubUser().id, { headSha: SHA1, number: 5 });
    github.openPull(repo.full_name, 5, SHA1, SAMPLE_DIFF);
    await deliver(t.app, 'pull_request', payload);
    await publication(t.app, installer.cookie, payload.pull_request.id, (review) => review.publication.state === 'published');
    github.refusedLines.clear();

    expect(github.rateLimitedAt).toHaveLength(1);
    const reviewedAt = github.reviewsCreatedAt.at(-1)!;
    expect(reviewedAt - github.rateLimitedAt[0]!).toBeGreaterThanOrEqual(900);
    expect(github.submittedReviews(repo.full_name, 5)).toHaveLength(1);
    // The probes GitHub accepted were deleted: no pending review is left behind.
    expect(github.pull(repo.full_name, 5).reviews.filter((review) => review.state === 'PENDING')).toEqual([]);
    expect(github.inlineComments(repo.full_name, 5).map((comment) => comment.line)).toEqual([3]);
    const summary = github.pull(repo.full_name, 5).issueComments.find((comment) => comment.user.type === 'Bot')!;
    expect(summary.body).toContain('### Findings not posted inline');
    expect(summary.body).toMatch(/`src\/math\.ts:9` clamp does not check min <= max \(GitHub could not place it on the diff\)/);
  });

  it('a failed review: the check is neutral, titled "Review failed" with the reason; nothing else is posted', async () => {
    const { t, github } = world;
    const installationId = 4_100_005;
    const { installer, repo } = await installedRepository(installationId);
    world.model.reply(() => ({ status: 400, message: 'This model is not available' }));
    const payload = appPullRequest(installationId, repo, githubUser().id, { headSha: SHA1, number: 9 });
    github.openPull(repo.full_name, 9, SHA1, SAMPLE_DIFF);
    await deliver(t.app, 'pull_request', payload);
    const failed = await publication(t.app, installer.cookie, payload.pull_request.id, (review) => review.reviewStatus === 'failed' && review.publication.state === 'published');
    const check = github.checkRuns.find((run) => run.repository === repo.full_name && run.head_sha === SHA1)!;
    expect(check).toMatchObject({ status: 'completed', conclusion: 'neutral' });
    expect(check.output.title).toMatch(/^Review failed/);
    expect(check.output.summary).toContain(failed.failureReason!);
    expect(github.submittedReviews(repo.full_name, 9)).toEqual([]);
    expect(github.pull(repo.full_name, 9).issueComments).toEqual([]);
  });

  it('uninstalled: nothing more is posted and no token is asked for; the stored pull request and review stay', async () => {
    const { t, github } = world;
    const installationId = 4_100_004;
    const { installer, repo } = await installedRepository(installationId);
    world.model.reply(appModel([]));
    const payload = appPullRequest(installationId, repo, githubUser().id, { headSha: SHA1, number: 8 });
    github.openPull(repo.full_name, 8, SHA1, SAMPLE_DIFF);
    await deliver(t.app, 'pull_request', payload);
    await publication(t.app, installer.cookie, payload.pull_request.id, (review) => review.publication.state === 'published');

    expect((await deliver(t.app, 'installation', installationPayload('deleted', installationId, installer.githubId, [repo]))).statusCode).toBe(200);
    github.uninstall(installationId);
    const tokensBefore = github.requests.filter((request) => request.path === `/app/installations/${installationId}/access_tokens`).length;
    const postsBefore = github.requests.filter((request) => request.path.startsWith(`/repos/${repo.full_name}/`) && request.method !== 'GET').length;
    const push = appPullRequest(installationId, repo, payload.pull_request.user.id, { action: 'synchronize', headSha: SHA2, number: 8, prId: payload.pull_request.id, updatedAt: new Date(Date.now() + 60_000).toISOString() });
    expect((await deliver(t.app, 'pull_request', push)).statusCode).toBe(200);
    const help = github.addIssueComment(repo.full_name, 8, '/help', member());
    expect((await deliver(t.app, 'issue_comment', commentPayload(installationId, repo, 8, help))).statusCode).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 500));

    expect(github.requests.filter((request) => request.path === `/app/installations/${installationId}/access_tokens`)).toHaveLength(tokensBefore);
    expect(github.requests.filter((request) => request.path.startsWith(`/repos/${repo.full_name}/`) && request.method !== 'GET')).toHaveLength(postsBefore);
    expect((await t.app.inject({ method: 'GET', url: '/github/installations', headers: { cookie: installer.cookie } })).json()).toEqual([]);
    const stored = await publication(t.app, installer.cookie, payload.pull_request.id, () => true);
    expect(stored).toMatchObject({ reviewStatus: 'completed', reviewdSha: SHA1, publication: { state: 'not_applicable' } });
  });
});
