import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pullRequests, repositories, reviews, webhookDeliveries } from '../../src/db/schema/index.js';
import { loadRepositoryConfig } from '../../src/code-hosts/github/github-repository-config.js';
import { createAccount } from '../helpers/accounts.js';
import { githubEnv, signInWithGitHub } from '../helpers/github-login.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { examplePayload, pullRequestExamples, signedDelivery, WEBHOOK_SECRET } from '../helpers/webhooks.js';
import { FakeGitHub } from '../fakes/fake-github.js';

describe('webhook intake', () => {
  let github: FakeGitHub;
  let t: TestApp;
  beforeAll(async () => {
    github = await new FakeGitHub().start();
    // No worker role: the jobs stay in the queue where the tests can count them.
    t = await createTestApp({ env: { ...githubEnv(github), GITHUB_WEBHOOK_SECRET: WEBHOOK_SECRET }, role: 'api' });
  });
  afterAll(async () => {
    await t.close();
    await github.stop();
  });

  const queued = async () => (await t.app.queue.counts('unprocessedWebhookPayload')).waiting;
  const storedPr = async (prId: number) => (await t.app.db.select().from(pullRequests).where(eq(pullRequests.prId, prId)))[0];

  it('GET /webhook says the listener is online, without a session', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/webhook' });
    expect(response.statusCode).toBe(200);
  });

  it('end to end: GitHub sign-in, a signed real `opened` payload, the PR in the author’s list and nobody else’s', async () => {
    const author = await signInWithGitHub(t.app, github);
    const stranger = await createAccount(t.app, t.outbox);
    const payload = examplePayload({ authorId: author.githubId, title: 'Add the widget' });
    const before = await queued();

    const response = await t.app.inject(await signedDelivery(payload));
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ message: 'The request has succeeded.' });
    expect(await queued()).toBe(before + 1);

    const list = await t.app.inject({ method: 'GET', url: '/pull-request/list', headers: { cookie: author.cookie } });
    const pr = payload.pull_request;
    expect(list.json()).toEqual([
      {
        title: 'Add the widget',
        prId: pr.id,
        // decisions.md §12: every item names its code host and links to its page.
        provider: 'github',
        url: pr.html_url,
        number: pr.number,
        repositoryName: 'Codertocat/Hello-World',
        diff: pr.diff_url,
        additions: pr.additions,
        deletions: pr.deletions,
        status: 'pending',
        createdAt: new Date(pr.created_at).toISOString(),
        headBranch: pr.head.ref,
        baseBranch: pr.base.ref,
        updatedAt: new Date(pr.updated_at).toISOString(),
        htmlUrl: pr.html_url,
        // decisions.md §15: the organization it belongs to; none for a personal installation.
        org: null,
      },
    ]);
    expect((await t.app.inject({ method: 'GET', url: '/pull-request/list', headers: { cookie: stranger.cookie } })).json()).toEqual([]);
  });

  it('maps every field, keeps the whole payload, links the repository and starts the review', async () => {
    const author = await signInWithGitHub(t.app, github);
    const payload = examplePayload({ authorId: author.githubId });
    await t.app.inject(await signedDelivery(payload));
    const pr = payload.pull_request;
    const stored = (await storedPr(pr.id))!;
    expect(stored).toMatchObject({
      prNumber: pr.number,
      repositoryId: String(payload.repository.id),
      repositoryName: 'Codertocat/Hello-World',
      state: pr.state,
      htmlUrl: pr.html_url,
      diff: pr.diff_url,
      draft: pr.draft,
      merged: pr.merged,
      headBranch: pr.head.ref,
      baseBranch: pr.base.ref,
      headSha: pr.head.sha,
      baseSha: pr.base.sha,
      mergeCommitSha: pr.merge_commit_sha,
      commitsCount: pr.commits,
      additions: pr.additions,
      deletions: pr.deletions,
      changedFiles: pr.changed_files,
      reviewStatus: 'pending',
    });
    expect(stored.bodyBlob).toEqual(payload);
    const [review] = await t.app.db.select().from(reviews).where(eq(reviews.prId, pr.id));
    expect(review).toMatchObject({ id: stored.id, state: 'WEBHOOK_RECEIVED', status: 'pending', triggedBy: 'webhook', mode: 'focused', headSha: pr.head.sha });
    const links = await t.app.db.select().from(repositories).where(eq(repositories.userId, stored.userId));
    expect(links).toMatchObject([{ fullName: 'Codertocat/Hello-World', repositoryId: payload.repository.id }]);
  });

  it('accepts every real pull_request example payload when its author is linked', async () => {
    const author = await signInWithGitHub(t.app, github);
    expect(pullRequestExamples.length).toBeGreaterThanOrEqual(25);
    for (const example of pullRequestExamples) {
      const payload = structuredClone(example);
      payload.pull_request.user.id = author.githubId;
      const response = await t.app.inject(await signedDelivery(payload));
      expect(response.statusCode, `${example.action}: ${response.body}`).toBe(200);
    }
    const actions = new Set(pullRequestExamples.map((example) => example.action));
    expect(actions).toEqual(new Set(['opened', 'assigned', 'closed', 'converted_to_draft', 'labeled', 'locked', 'ready_for_review', 'reopened', 'review_request_removed', 'review_requested', 'synchronize', 'unassigned', 'unlabeled', 'unlocked']));
  });

  it('a redelivery answers 200 and changes nothing', async () => {
    const author = await signInWithGitHub(t.app, github);
    const payload = examplePayload({ authorId: author.githubId, title: 'Original' });
    const deliveryId = '72d3162e-cc78-11e3-81ab-4c9367dc0958';
    await t.app.inject(await signedDelivery(payload, { deliveryId }));
    const before = await queued();
    const changed = { ...payload, pull_request: { ...payload.pull_request, title: 'Changed', updated_at: '2030-01-01T00:00:00Z' } };
    const again = await t.app.inject(await signedDelivery(changed, { deliveryId }));
    expect(again.statusCode).toBe(200);
    expect((await storedPr(payload.pull_request.id))?.title).toBe('Original');
    expect(await queued()).toBe(before);
  });

  it('starts reviews only for opened, reopened, synchronize and ready_for_review on open PRs, once per head commit', async () => {
    const author = await signInWithGitHub(t.app, github);
    const prId = examplePayload({ authorId: 1 }).pull_request.id;
    let clock = Date.parse('2025-01-01T00:00:00Z');
    const deliver = async (overrides: Partial<Parameters<typeof examplePayload>[0]>) => {
      const before = await queued();
      clock += 60_000;
      const payload = examplePayload({ authorId: author.githubId, prId, updatedAt: new Date(clock).toISOString(), ...overrides });
      expect((await t.app.inject(await signedDelivery(payload))).statusCode).toBe(200);
      return (await queued()) - before;
    };

    // A draft whose repository's file is not known yet starts no run (its own job decides, below);
    // marked ready, it is reviewed.
    expect(await deliver({ action: 'opened', draft: true, headSha: 'a1' })).toBe(0);
    expect(await deliver({ action: 'labeled', headSha: 'a1' })).toBe(0);
    expect(await deliver({ action: 'ready_for_review', draft: false, headSha: 'a1' })).toBe(1);
    // The same commit again, under another action or delivery: no second review.
    expect(await deliver({ action: 'reopened', headSha: 'a1' })).toBe(0);
    expect(await deliver({ action: 'synchronize', headSha: 'b2' })).toBe(1);
    expect(await deliver({ action: 'assigned', headSha: 'b2' })).toBe(0);
    expect(await deliver({ action: 'synchronize', headSha: 'c3' })).toBe(1);
    expect((await storedPr(prId))?.headSha).toBe('c3');
  });

  describe('drafts, decided at intake from the cached `.ai-review.yml`', () => {
    let repoCount = 0;
    /** A repository of its own, its file at the base commit read once as a run reads it (and so cached), or never read. */
    async function repository(file: string | null) {
      const id = 800_000 + ++repoCount;
      const repo = { id, full_name: `draft-org/repo-${id}` };
      const baseSha = `draftbase${repoCount}`.padEnd(40, '0');
      if (file !== null) {
        github.setFile(repo.full_name, baseSha, '.ai-review.yml', file);
        await loadRepositoryConfig({ github: t.app.github, kv: t.app.kv }, repo.full_name, baseSha, undefined);
      }
      return { repository: repo, baseSha };
    }
    const undecided = async () => (await t.app.queue.counts('undecidedDraft')).waiting;
    const deliveryOf = async (prId: number) => (await t.app.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.prId, prId)))[0];
    const reviewOf = async (prId: number) => (await t.app.db.select().from(reviews).where(eq(reviews.prId, prId)))[0];

    it('a draft of a repository whose file does not review drafts is stored, with no run and no job', async () => {
      const author = await signInWithGitHub(t.app, github);
      const payload = examplePayload({ authorId: author.githubId, draft: true, ...(await repository('reviews:\n  mode: deep\n')) });
      const [runs, drafts] = [await queued(), await undecided()];
      expect((await t.app.inject(await signedDelivery(payload))).statusCode).toBe(200);
      expect([await queued(), await undecided()]).toEqual([runs, drafts]);
      expect(await reviewOf(payload.pull_request.id)).toBeUndefined();
      expect(await storedPr(payload.pull_request.id)).toMatchObject({ draft: true, reviewStatus: 'pending' });
      expect(await deliveryOf(payload.pull_request.id)).toMatchObject({ startsReview: false, awaitsConfig: false });

      // Marked ready: reviewed.
      const ready = examplePayload({ authorId: author.githubId, prId: payload.pull_request.id, action: 'ready_for_review', draft: false, updatedAt: '2030-01-01T00:00:00Z' });
      Object.assign(ready.repository, payload.repository);
      expect((await t.app.inject(await signedDelivery(ready))).statusCode).toBe(200);
      expect(await queued()).toBe(runs + 1);
      expect(await reviewOf(payload.pull_request.id)).toMatchObject({ status: 'pending', triggedBy: 'webhook' });
    });

    it('a draft of a repository whose file says drafts: true starts its run at intake', async () => {
      const author = await signInWithGitHub(t.app, github);
      const payload = examplePayload({ authorId: author.githubId, draft: true, ...(await repository('reviews:\n  drafts: true\n')) });
      const [runs, drafts] = [await queued(), await undecided()];
      expect((await t.app.inject(await signedDelivery(payload))).statusCode).toBe(200);
      expect([await queued(), await undecided()]).toEqual([runs + 1, drafts]);
      expect(await deliveryOf(payload.pull_request.id)).toMatchObject({ startsReview: true, awaitsConfig: false });
    });

    it('a draft whose file is not cached waits for the undecidedDraft job, which the relay also finds', async () => {
      const author = await signInWithGitHub(t.app, github);
      const payload = examplePayload({ authorId: author.githubId, draft: true, ...(await repository(null)) });
      const [runs, drafts] = [await queued(), await undecided()];
      expect((await t.app.inject(await signedDelivery(payload))).statusCode).toBe(200);
      expect([await queued(), await undecided()]).toEqual([runs, drafts + 1]);
      expect(await reviewOf(payload.pull_request.id)).toBeUndefined();
      const delivery = (await deliveryOf(payload.pull_request.id))!;
      expect(delivery).toMatchObject({ startsReview: false, awaitsConfig: true });
      await expect.poll(async () => (await deliveryOf(payload.pull_request.id))?.enqueuedAt).not.toBeNull();

      // As if stored while the queue was down: the relay finds it and enqueues it again on the draft
      // queue (where its job id is still waiting), not as a run.
      await t.app.db.update(webhookDeliveries).set({ enqueuedAt: null, receivedAt: new Date(Date.now() - 60_000) }).where(eq(webhookDeliveries.deliveryId, delivery.deliveryId));
      expect((await t.app.repos.deliveries.listUnqueued(new Date(), 1_000)).map((row) => row.deliveryId)).toContain(delivery.deliveryId);
      expect(await t.app.services.webhook.dispatchPending()).toBeGreaterThanOrEqual(1);
      await expect.poll(async () => (await deliveryOf(payload.pull_request.id))?.enqueuedAt).not.toBeNull();
      expect([await queued(), await undecided()]).toEqual([runs, drafts + 1]);
    });
  });

  it('an out-of-order (older) delivery neither overwrites the pull request nor starts a review', async () => {
    const author = await signInWithGitHub(t.app, github);
    const prId = examplePayload({ authorId: 1 }).pull_request.id;
    await t.app.inject(await signedDelivery(examplePayload({ authorId: author.githubId, prId, title: 'Newer', headSha: 'new', updatedAt: '2025-06-01T00:00:00Z' })));
    const before = await queued();
    const older = examplePayload({ authorId: author.githubId, prId, action: 'synchronize', title: 'Older', headSha: 'old', updatedAt: '2025-05-01T00:00:00Z' });
    expect((await t.app.inject(await signedDelivery(older))).statusCode).toBe(200);
    expect(await storedPr(prId)).toMatchObject({ title: 'Newer', headSha: 'new' });
    expect(await queued()).toBe(before);
  });

  it('answers ping, and accepts the event in x-codehost-event too', async () => {
    const ping = await t.app.inject(await signedDelivery({ zen: 'Keep it logically awesome.', hook_id: 1 }, { event: 'ping' }));
    expect(ping.statusCode).toBe(200);
    const author = await signInWithGitHub(t.app, github);
    const payload = examplePayload({ authorId: author.githubId });
    const response = await t.app.inject(await signedDelivery(payload, { omit: ['x-github-event'], headers: { 'x-codehost-event': 'pull_request' } }));
    expect(response.statusCode).toBe(200);
    expect(await storedPr(payload.pull_request.id)).toBeDefined();
  });

  it('dedupes a delivery without x-github-delivery by its body', async () => {
    const author = await signInWithGitHub(t.app, github);
    const payload = examplePayload({ authorId: author.githubId });
    const delivery = await signedDelivery(payload, { omit: ['x-github-delivery'] });
    expect((await t.app.inject(delivery)).statusCode).toBe(200);
    const before = await queued();
    expect((await t.app.inject(delivery)).statusCode).toBe(200);
    expect(await queued()).toBe(before);
    const rows = await t.app.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.prId, payload.pull_request.id));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.deliveryId).toMatch(/^sha256-[0-9a-f]{64}$/);
  });
});
