import { and, eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { QueueName } from '../../src/adapters/queue/job-queue.js';
import { pullRequests, reviews, webhookDeliveries } from '../../src/db/schema/index.js';
import type { Account } from '../helpers/accounts.js';
import { bitbucketFixture, bitbucketWorld, signBody, type BitbucketWorld } from '../helpers/bitbucket-connections.js';

interface ListItem {
  prId: string | number;
  provider: string;
  url: string | null;
  number: number;
  repositoryName: string;
  htmlUrl: string | null;
  org: unknown;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ACCEPTED = { message: 'The request has succeeded.' };
const UNAUTHORIZED = { statusCode: 401, error: 'Unauthorized', message: 'Invalid X-Hub-Signature' };

/** decisions.md §16: `POST /webhook/bitbucket` with Bitbucket's documented payloads (test/fixtures/bitbucket/). */
describe('POST /webhook/bitbucket', () => {
  let world: BitbucketWorld;
  beforeAll(async () => {
    world = await bitbucketWorld();
  });
  afterAll(() => world?.close());
  // No webhook secret or token in any answer or log line, deliveries refused or not.
  afterEach(() => world.expectNothingLeaked());

  const storedFor = (userId: string, repositoryUuid: string) =>
    world.t.app.db.select().from(pullRequests).where(and(eq(pullRequests.userId, userId), eq(pullRequests.repositoryId, repositoryUuid)));
  const reviewsOf = (prId: number) => world.t.app.db.select().from(reviews).where(eq(reviews.prId, prId));
  const deliveriesOf = (prId: number) => world.t.app.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.prId, prId));
  const waiting = async (queue: QueueName) => (await world.t.app.queue.counts(queue)).waiting;
  const list = async (account: Account) => (await world.call(account, 'GET', '/pull-request/list')).json<ListItem[]>();

  it('stores an opened pull request durably for the connection owner, as a bitbucket pull request named by a UUID, and starts its review; a redelivery with the same X-Request-UUID changes nothing', async () => {
    const { account, repo, secret } = await world.connected();
    const payload = bitbucketFixture('pullrequest-created.json', repo, { draft: false });
    const queued = await waiting('unprocessedWebhookPayload');
    const first = await world.deliver('pullrequest:created', payload, { secret, requestUuid: 'delivery-1' });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toEqual(ACCEPTED);

    // Stored before the answer.
    const [pr] = await storedFor(account.id, repo.fake.uuid);
    expect(pr).toMatchObject({
      provider: 'bitbucket',
      prNumber: 42,
      repositoryName: repo.fullName,
      state: 'open',
      draft: false,
      merged: false,
      headSha: 'ed0e0bfd9a94',
      htmlUrl: payload.pullrequest.links.html.href,
      installationId: null,
      orgId: null,
    });
    expect(await reviewsOf(pr!.prId)).toEqual([expect.objectContaining({ status: 'pending', triggedBy: 'webhook', headSha: 'ed0e0bfd9a94' })]);
    await expect.poll(() => waiting('unprocessedWebhookPayload')).toBe(queued + 1);

    const items = await list(account);
    expect(items).toEqual([expect.objectContaining({ prId: pr!.id, provider: 'bitbucket', url: payload.pullrequest.links.html.href, number: 42, repositoryName: repo.fullName, org: null })]);
    expect(String(items[0]!.prId)).toMatch(UUID);
    const runId = (await reviewsOf(pr!.prId))[0]!.runId;
    expect((await world.call(account, 'GET', `/review/information/${pr!.id}`)).json()).toEqual([expect.objectContaining({ prId: pr!.id, provider: 'bitbucket' })]);

    // Bitbucket's retry: the same X-Request-UUID, a higher X-Attempt-Number.
    const retry = await world.deliver('pullrequest:created', payload, { secret, requestUuid: 'delivery-1', attempt: 2 });
    expect(retry.statusCode, retry.body).toBe(200);
    expect(retry.json()).toEqual(ACCEPTED);
    expect(await storedFor(account.id, repo.fake.uuid)).toHaveLength(1);
    expect(await deliveriesOf(pr!.prId)).toHaveLength(1);
    expect(await reviewsOf(pr!.prId)).toEqual([expect.objectContaining({ runId })]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await waiting('unprocessedWebhookPayload')).toBe(queued + 1);
  });

  it("the pull request's life: a push reviews the new head, merged and declined change its state", async () => {
    const { account, repo, secret } = await world.connected({ kind: 'api-token' });
    expect((await world.deliver('pullrequest:created', bitbucketFixture('pullrequest-created.json', repo, { draft: false }), { secret })).statusCode).toBe(200);
    const [pr] = await storedFor(account.id, repo.fake.uuid);
    const firstRun = (await reviewsOf(pr!.prId))[0]!.runId;

    // The push: Bitbucket sends no previous hash, the stored head is the old one.
    expect((await world.deliver('pullrequest:updated', bitbucketFixture('pullrequest-updated.json', repo), { secret })).statusCode).toBe(200);
    expect((await storedFor(account.id, repo.fake.uuid))[0]).toMatchObject({ headSha: 'a13a36d2655a', state: 'open' });
    const [afterPush] = await reviewsOf(pr!.prId);
    expect(afterPush).toMatchObject({ headSha: 'a13a36d2655a', status: 'pending' });
    expect(afterPush!.runId).not.toBe(firstRun);

    expect((await world.deliver('pullrequest:fulfilled', bitbucketFixture('pullrequest-fulfilled.json', repo), { secret })).statusCode).toBe(200);
    expect((await storedFor(account.id, repo.fake.uuid))[0]).toMatchObject({ state: 'closed', merged: true });

    const declined = await world.connected({ kind: 'api-token' });
    expect((await world.deliver('pullrequest:rejected', bitbucketFixture('pullrequest-rejected.json', declined.repo), { secret: declined.secret })).statusCode).toBe(200);
    expect((await storedFor(declined.account.id, declined.repo.fake.uuid))[0]).toMatchObject({ state: 'closed', merged: false });
    expect(await storedFor(account.id, repo.fake.uuid)).toHaveLength(1);
  });

  it('a draft waits for its repository configuration (no run at intake); a comment on a connection without commands is answered 200 and ignored, on one with commands queued once', async () => {
    const { account, repo, secret } = await world.connected();
    expect((await world.deliver('pullrequest:created', bitbucketFixture('pullrequest-created.json', repo), { secret })).statusCode).toBe(200);
    const [pr] = await storedFor(account.id, repo.fake.uuid);
    expect(pr).toMatchObject({ draft: true });
    expect(await reviewsOf(pr!.prId)).toEqual([]);
    expect((await deliveriesOf(pr!.prId))[0]).toMatchObject({ awaitsConfig: true, startsReview: false, event: 'pullrequest:created' });

    const commands = await waiting('appCommand');
    const comment = await world.deliver('pullrequest:comment_created', bitbucketFixture('pullrequest-comment-created.json', repo), { secret });
    expect(comment.statusCode, comment.body).toBe(200);
    expect(await waiting('appCommand')).toBe(commands);

    // With an admin's API token the same comment is queued for a worker, once across retries.
    const admin = await world.connected({ kind: 'api-token' });
    const payload = bitbucketFixture('pullrequest-comment-created.json', admin.repo);
    for (const attempt of [1, 2]) expect((await world.deliver('pullrequest:comment_created', payload, { secret: admin.secret, requestUuid: 'comment-1', attempt })).statusCode).toBe(200);
    expect(await waiting('appCommand')).toBe(commands + 1);
  });

  describe('errors', () => {
    it('422 for another X-Event-Key, or none, once the signature is good; 400 for a payload that is not the event', async () => {
      const { repo, secret } = await world.connected();
      const payload = bitbucketFixture('pullrequest-created.json', repo);
      const push = await world.deliver('repo:push', payload, { secret });
      expect(push.statusCode).toBe(422);
      expect(push.json()).toMatchObject({ statusCode: 422, message: 'Unsupported event "repo:push"' });
      expect((await world.deliver('', payload, { secret })).statusCode).toBe(422);
      const noPullRequest = { repository: payload.repository, actor: {} };
      expect((await world.deliver('pullrequest:created', noPullRequest, { secret })).statusCode).toBe(400);
    });
  });

  describe('security', () => {
    it('401 when X-Hub-Signature is missing, wrong, malformed or signed by another connection, before the event is looked at; nothing stored', async () => {
      const mine = await world.connected();
      const other = await world.connected();
      const payload = bitbucketFixture('pullrequest-created.json', mine.repo, { draft: false });
      const raw = JSON.stringify(payload);
      for (const options of [
        {},
        { secret: 'forged' },
        { secret: other.secret },
        { signature: signBody(raw, mine.secret).replace('sha256=', 'sha1=') },
        { signature: signBody(raw, mine.secret).slice(0, -2) },
        { signature: signBody(`${raw} `, mine.secret) },
        { signature: '' },
      ]) {
        const response = await world.deliver('pullrequest:created', payload, options);
        expect(response.statusCode, JSON.stringify(options)).toBe(401);
        expect(response.json()).toEqual(UNAUTHORIZED);
        expect((await world.deliver('repo:push', payload, options)).statusCode).toBe(401);
      }
      expect(await storedFor(mine.account.id, mine.repo.fake.uuid)).toEqual([]);
    });

    it('401 for a repository no connection holds, whoever signed it, and for a payload naming no repository; nothing stored', async () => {
      const mine = await world.connected();
      const stranger = world.repository();
      const payload = bitbucketFixture('pullrequest-created.json', stranger, { draft: false });
      const response = await world.deliver('pullrequest:created', payload, { secret: mine.secret });
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual(UNAUTHORIZED);
      const { repository: _repository, ...nameless } = bitbucketFixture('pullrequest-created.json', mine.repo);
      expect((await world.deliver('pullrequest:created', nameless, { secret: mine.secret })).statusCode).toBe(401);
      expect(await world.t.app.db.select().from(pullRequests).where(eq(pullRequests.repositoryId, stranger.fake.uuid))).toEqual([]);
      expect(await storedFor(mine.account.id, mine.repo.fake.uuid)).toEqual([]);
    });

    it('after the connection is deleted its signature is refused (401) at once, though its webhook was warm in the cache', async () => {
      const { account, repo, secret, connection } = await world.connected();
      expect((await world.deliver('pullrequest:created', bitbucketFixture('pullrequest-created.json', repo, { id: 1, draft: false }), { secret })).statusCode).toBe(200);
      expect((await world.call(account, 'DELETE', `/bitbucket/connections/${connection.id}`)).statusCode).toBe(204);
      const refused = await world.deliver('pullrequest:created', bitbucketFixture('pullrequest-created.json', repo, { id: 2, draft: false }), { secret });
      expect(refused.statusCode).toBe(401);
      expect(refused.json()).toEqual(UNAUTHORIZED);
      expect((await storedFor(account.id, repo.fake.uuid)).map((pr) => pr.prNumber)).toEqual([1]);
    });

    it('a second user who connects the same repository gets records of their own; neither sees the other’s', async () => {
      const first = await world.connected();
      const second = await world.connected({ repo: first.repo, kind: 'api-token' });
      const payload = bitbucketFixture('pullrequest-created.json', first.repo, { draft: false });
      // Bitbucket calls each webhook with its own secret; both are the same delivery's content.
      expect((await world.deliver('pullrequest:created', payload, { secret: first.secret })).statusCode).toBe(200);
      expect((await world.deliver('pullrequest:created', payload, { secret: second.secret })).statusCode).toBe(200);
      const [mine] = await storedFor(first.account.id, first.repo.fake.uuid);
      const [theirs] = await storedFor(second.account.id, first.repo.fake.uuid);
      expect(mine).toBeDefined();
      expect(theirs).toBeDefined();
      expect(mine!.id).not.toBe(theirs!.id);
      expect(mine!.prId).not.toBe(theirs!.prId);
      expect(await reviewsOf(mine!.prId)).toHaveLength(1);
      expect(await reviewsOf(theirs!.prId)).toHaveLength(1);

      expect((await list(first.account)).map((item) => item.prId)).toEqual([mine!.id]);
      expect((await list(second.account)).map((item) => item.prId)).toEqual([theirs!.id]);
      for (const url of [`/review/information/${mine!.id}`, `/pull-request/diff/${mine!.id}`]) {
        expect((await world.call(second.account, 'GET', url)).statusCode, url).toBe(404);
      }
      // The internal negative key is no selector.
      expect((await world.call(first.account, 'GET', `/review/information/${mine!.prId}`)).statusCode).toBe(400);
    });
  });
});
