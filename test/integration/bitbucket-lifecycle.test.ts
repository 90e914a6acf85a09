import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MESSAGES } from '../fakes/fake-bitbucket.js';
import { BitbucketWorld, gitDiff, reviewer, type ConnectedRepository } from '../helpers/bitbucket-world.js';

const BASE = 'a'.repeat(40);
const HEAD = 'c'.repeat(40);
const GREET = { path: 'src/greet.ts', hunk: '@@ -0,0 +1,3 @@', lines: ['+export function greet(name: string) {', "+  return 'Hello ' + name;", '+}'], created: true };
const FINDING = { file: 'src/greet.ts', line: 2, severity: 'MAJOR', title: 'Use a template literal' };

/** A Bitbucket pull request's life around its review (decisions.md §16): drafts, merging and declining, failures, disconnecting, Bitbucket's faults. */
describe('Bitbucket pull requests: drafts, states, failures, disconnecting, faults', () => {
  let w: BitbucketWorld;

  beforeAll(async () => {
    w = await BitbucketWorld.start();
    w.world.model.reply(reviewer([]));
  });
  afterAll(() => w.close());

  /** Opens pull request `number` on the fake (at HEAD, unless a draft says otherwise) and delivers `pullrequest:created`. */
  const open = async (repo: ConnectedRepository, number: number, options: { draft?: boolean } = {}) => {
    w.bitbucket.openPullRequest(repo.fullName, number, { author: w.writer, source: HEAD, destination: BASE, diff: gitDiff([GREET]), draft: options.draft ?? false });
    await w.send(repo, 'created', number);
    return w.prIdOf(repo, number);
  };
  const published = (prId: string) => w.settled(prId, (review) => review.publication.state === 'published');
  const modelCalls = () => w.world.model.completions().length;

  it('a draft is not reviewed; made ready (updated, draft false) its head is; a title edit only refreshes; fulfilled is merged, rejected closed', async () => {
    const repo = await w.connect('acme/drafts');
    const calls = modelCalls();
    const prId = await open(repo, 1, { draft: true });
    // The draft's delivery waits for the repository's .ai-review.yml at the destination (none: drafts are not reviewed).
    const config = `/repositories/acme/drafts/src/${BASE.slice(0, 12)}/.ai-review.yml`;
    await expect.poll(() => w.bitbucket.requests.some((request) => request.path === config), { timeout: 10_000, interval: 50 }).toBe(true);
    await w.idle('undecidedDraft', 'unprocessedWebhookPayload');
    expect(await w.record(repo, 1)).toMatchObject({ draft: true, state: 'open' });
    expect(w.statusPosts(repo, HEAD)).toEqual([]);
    expect(modelCalls()).toBe(calls);

    w.bitbucket.openPullRequest(repo.fullName, 1, { author: w.writer, source: HEAD, destination: BASE, diff: gitDiff([GREET]), draft: false });
    await w.send(repo, 'updated', 1);
    const review = await published(prId);
    expect(review).toMatchObject({ reviewStatus: 'completed', reviewdSha: HEAD, prIsDraft: false });
    expect(w.statusPosts(repo, HEAD).map((status) => status.state)).toEqual(['INPROGRESS', 'SUCCESSFUL']);

    // Same head, a new title: stored, not reviewed again.
    const reviewed = modelCalls();
    w.bitbucket.openPullRequest(repo.fullName, 1, { author: w.writer, source: HEAD, destination: BASE, diff: gitDiff([GREET]), title: 'Greet people' });
    await w.send(repo, 'updated', 1);
    await expect.poll(async () => (await w.record(repo, 1))!.title).toBe('Greet people');
    await w.idle('unprocessedWebhookPayload', 'sanitizedPrPayload', 'extractedPrContent', 'completedReview');
    expect(modelCalls()).toBe(reviewed);
    expect(w.statusPosts(repo, HEAD)).toHaveLength(2);

    w.bitbucket.pullRequest(repo.fullName, 1).state = 'MERGED';
    await w.send(repo, 'fulfilled', 1);
    await expect.poll(async () => (await w.record(repo, 1))!.merged).toBe(true);
    expect((await w.record(repo, 1))!.state).toBe('closed');

    await open(repo, 2, { draft: true });
    w.bitbucket.pullRequest(repo.fullName, 2).state = 'DECLINED';
    await w.send(repo, 'rejected', 2);
    await expect.poll(async () => (await w.record(repo, 2))!.state).toBe('closed');
    expect((await w.record(repo, 2))!.merged).toBe(false);
  });

  it('a failed review: the build status is FAILED with "Review failed" and the reason, which the review keeps; nothing else is posted', async () => {
    const repo = await w.connect('acme/failing');
    w.world.model.reply(() => ({ status: 400, message: 'This model is not available' }));
    try {
      const prId = await open(repo, 1);
      const review = await published(prId);
      expect(review.reviewStatus).toBe('failed');
      expect(review.failureReason).toContain('This model is not available');
      const last = w.bitbucket.repository(repo.fullName).statuses.find((status) => status.commit === HEAD)!;
      expect(last).toMatchObject({ key: 'ai-review', name: 'AI review', state: 'FAILED' });
      expect(last.description).toMatch(/^Review failed: .*This model is not available/);
      expect(w.bitbucket.pullRequest(repo.fullName, 1).comments).toEqual([]);
    } finally {
      w.world.model.reply(reviewer([]));
    }
  });

  it('disconnecting deletes the webhook on Bitbucket; later deliveries signed with its secret are 401 and store nothing', async () => {
    const repo = await w.connect('acme/leaving');
    const removed = await w.app.inject({ method: 'DELETE', url: `/bitbucket/connections/${repo.connectionId}`, headers: { cookie: w.owner.cookie } });
    expect(removed.statusCode, removed.body).toBe(204);
    expect(w.bitbucket.repository(repo.fullName).hooks).toEqual([]);
    expect(w.bitbucket.requests.some((request) => request.method === 'DELETE' && decodeURIComponent(request.path) === `/repositories/acme/leaving/hooks/${repo.hookUuid}`)).toBe(true);
    w.bitbucket.openPullRequest(repo.fullName, 1, { author: w.writer, source: HEAD, destination: BASE, diff: gitDiff([GREET]) });
    const late = await w.deliver(repo, 'created', w.payload(repo, 'created', 1, w.writer));
    expect(late.statusCode).toBe(401);
    expect(JSON.parse(late.body)).toMatchObject({ statusCode: 401, message: 'Invalid X-Hub-Signature' });
    expect(await w.record(repo, 1)).toBeUndefined();
    const listed = (await w.app.inject({ method: 'GET', url: '/bitbucket/connections', headers: { cookie: w.owner.cookie } })).json<Array<{ id: string }>>();
    expect(listed.map((connection) => connection.id)).not.toContain(repo.connectionId);
  });

  it('a 429 while posting a comment waits and retries through the queue, then posts it once', async () => {
    const repo = await w.connect('acme/limited');
    w.world.model.reply(reviewer([FINDING]));
    try {
      // Bitbucket documents no Retry-After (facts §6); one sent by a proxy is honoured, which keeps the test short.
      w.bitbucket.fail(/^POST \/repositories\/acme\/limited\/pullrequests\/1\/comments$/, 429, { headers: { 'retry-after': '0' }, body: { type: 'error', error: { message: MESSAGES.rateLimited } } });
      const review = await published(await open(repo, 1));
      expect(review.reviewStatus).toBe('completed');
      const comments = w.bitbucket.pullRequest(repo.fullName, 1).comments;
      expect(comments.filter((comment) => comment.inline !== null)).toEqual([expect.objectContaining({ inline: { path: 'src/greet.ts', from: null, to: 2 } })]);
      expect(comments.filter((comment) => comment.raw.startsWith('[ai-review:summary]: #'))).toHaveLength(1);
      expect(w.bitbucket.requests.filter((request) => request.method === 'POST' && request.path === '/repositories/acme/limited/pullrequests/1/comments').length).toBeGreaterThanOrEqual(3);
      expect((await connection(repo)).status).toBe('active');
    } finally {
      w.world.model.reply(reviewer([]));
    }
  });

  it('a 401 or a 403 from Bitbucket marks the connection broken with its reason; the review stays completed', async () => {
    const revoked = await w.connect('acme/revoked');
    w.bitbucket.fail(/^POST \/repositories\/acme\/revoked\/commit\/[0-9a-f]+\/statuses\/build$/, 401, { body: { type: 'error', error: { message: MESSAGES.unauthorized } } });
    const first = await w.settled(await open(revoked, 1), (review) => review.publication.state === 'failed');
    expect(first.reviewStatus).toBe('completed');
    expect(first.publication.reason).toContain(MESSAGES.unauthorized);
    expect(await connection(revoked)).toMatchObject({ status: 'broken', reason: MESSAGES.unauthorized });

    const narrowed = await w.connect('acme/narrowed');
    w.world.model.reply(reviewer([FINDING]));
    try {
      const scopes = { type: 'error', error: { message: MESSAGES.scopes, detail: { granted: ['read:pullrequest:bitbucket'], required: ['write:pullrequest:bitbucket'] } } };
      w.bitbucket.fail(/^POST \/repositories\/acme\/narrowed\/pullrequests\/1\/comments$/, 403, { body: scopes });
      const second = await w.settled(await open(narrowed, 1), (review) => review.publication.state === 'failed');
      expect(second.reviewStatus).toBe('completed');
      expect(await connection(narrowed)).toMatchObject({ status: 'broken', reason: `${MESSAGES.scopes} (required: write:pullrequest:bitbucket)` });
      // Broken: nothing more is posted there until it is connected again.
      expect(w.bitbucket.pullRequest(narrowed.fullName, 1).comments).toEqual([]);
    } finally {
      w.world.model.reply(reviewer([]));
    }
  });

  const connection = async (repo: ConnectedRepository) => {
    const listed = (await w.app.inject({ method: 'GET', url: '/bitbucket/connections', headers: { cookie: w.owner.cookie } })).json<Array<{ id: string; status: string; reason: string | null }>>();
    return listed.find((candidate) => candidate.id === repo.connectionId)!;
  };
});
