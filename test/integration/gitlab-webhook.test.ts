import { readFileSync } from 'node:fs';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pullRequests, reviews, webhookDeliveries } from '../../src/db/schema/index.js';
import { gitlabConnections, gitlabMergeRequests } from '../../src/code-hosts/gitlab/gitlab-tables.js';
import { GitLabConnectionCache } from '../../src/code-hosts/gitlab/gitlab-connection-cache.js';
import { createAccount, type Account } from '../helpers/accounts.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { ACCESS, FakeGitLab } from '../fakes/fake-gitlab.js';

const PUBLIC_URL = 'https://review.example.test';
/** GitLab's documented examples, with the project and merge request this suite connects. */
interface Hook {
  project: Record<string, unknown>;
  object_attributes: Record<string, unknown> & { iid?: number; url: string; last_commit: { id: string } };
  changes?: unknown;
  merge_request?: unknown;
}
const fixture = (name: string) => JSON.parse(readFileSync(new URL(`../fixtures/gitlab/${name}`, import.meta.url), 'utf8')) as Hook;

describe('POST /webhook/gitlab', () => {
  let gitlab: FakeGitLab;
  let t: TestApp;
  let counter = 0;

  beforeAll(async () => {
    gitlab = await new FakeGitLab().start();
    // No workers: a started review stays queued where the test sees it.
    t = await createTestApp({ role: 'api', env: { PUBLIC_URL } });
  });
  afterAll(async () => {
    await t.close();
    await gitlab.stop();
  });

  /** A project of its own, connected by a new account: its id and the webhook secret GitLab would send. */
  async function connected(account?: Account) {
    counter++;
    const maintainer = { id: 900 + counter, username: `m${counter}`, name: 'M' };
    const project = gitlab.addProject(`hooks-${counter}/app`);
    gitlab.addMember(project.id, maintainer, ACCESS.maintainer);
    const owner = account ?? (await createAccount(t.app, t.outbox));
    const response = await t.app.inject({ method: 'POST', url: '/gitlab/connections', headers: { cookie: owner.cookie }, payload: { baseUrl: gitlab.url, project: project.id, token: gitlab.issueToken(maintainer) } });
    expect(response.statusCode, response.body).toBe(201);
    return { owner, projectId: project.id, path: project.path, secret: project.hooks.at(-1)!.token!, connectionId: response.json<{ id: string }>().id };
  }

  /** A second account connecting an already connected project with a maintainer's token of its own: the account and its webhook secret. */
  async function connectedAgain(projectId: number, idBase: number, username: string) {
    const second = await createAccount(t.app, t.outbox);
    const member = { id: idBase + counter, username: `${username}${counter}`, name: username.charAt(0).toUpperCase() };
    gitlab.addMember(projectId, member, ACCESS.maintainer);
    const connect = await t.app.inject({ method: 'POST', url: '/gitlab/connections', headers: { cookie: second.cookie }, payload: { baseUrl: gitlab.url, project: projectId, token: gitlab.issueToken(member) } });
    expect(connect.statusCode, connect.body).toBe(201);
    return { second, secondSecret: gitlab.project(projectId).hooks.at(-1)!.token! };
  }

  function mergeRequestHook(projectId: number, path: string, attributes: Record<string, unknown> = {}, changes: Record<string, unknown> = {}) {
    const hook = fixture('merge-request-hook.json');
    hook.project = { ...hook.project, id: projectId, path_with_namespace: path, web_url: `${gitlab.url}/${path}` };
    hook.object_attributes = { ...hook.object_attributes, target_project_id: projectId, source_project_id: projectId, ...attributes };
    hook.changes = changes;
    return hook;
  }

  let uuid = 0;
  const deliver = (payload: object, token: string | undefined, headers: Record<string, string> = {}) =>
    t.app.inject({
      method: 'POST',
      url: '/webhook/gitlab',
      headers: { 'content-type': 'application/json', 'x-gitlab-event': 'Merge Request Hook', 'x-gitlab-event-uuid': `uuid-${++uuid}`, ...(token === undefined ? {} : { 'x-gitlab-token': token }), ...headers },
      payload: JSON.stringify(payload),
    });

  const storedFor = (userId: string, projectId: number) =>
    t.app.db.select().from(pullRequests).where(and(eq(pullRequests.userId, userId), eq(pullRequests.repositoryId, String(projectId))));
  const reviewOf = async (prId: number) => (await t.app.db.select().from(reviews).where(eq(reviews.prId, prId)))[0];
  const deliveriesOf = (prId: number) => t.app.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.prId, prId));

  it("an opened merge request is stored for the connection's owner, as a gitlab pull request, and its review starts; GitLab's resend changes nothing", async () => {
    const { owner, projectId, path, secret } = await connected();
    const hook = mergeRequestHook(projectId, path, { iid: 7 });
    const first = await deliver(hook, secret, { 'idempotency-key': 'key-1' });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toEqual({ message: 'The request has succeeded.' });
    const [pr] = await storedFor(owner.id, projectId);
    expect(pr).toMatchObject({ provider: 'gitlab', prNumber: 7, repositoryName: path, state: 'open', draft: false, headSha: hook.object_attributes.last_commit.id, htmlUrl: hook.object_attributes.url, installationId: null });
    expect(pr!.prId).toBeLessThan(0);
    expect(await reviewOf(pr!.prId)).toMatchObject({ status: 'pending', triggedBy: 'webhook' });
    expect(await t.app.queue.counts('unprocessedWebhookPayload')).toMatchObject({ waiting: expect.any(Number) });

    // A retry carries the same Idempotency-Key (its event UUID may differ): one delivery stored.
    expect((await deliver(hook, secret, { 'idempotency-key': 'key-1' })).statusCode).toBe(200);
    // Without Idempotency-Key (before GitLab 17.4), the event UUID is the key.
    expect((await deliver(hook, secret, { 'x-gitlab-event-uuid': 'same' })).statusCode).toBe(200);
    expect((await deliver(hook, secret, { 'x-gitlab-event-uuid': 'same' })).statusCode).toBe(200);
    expect(await deliveriesOf(pr!.prId)).toHaveLength(2);
    expect(await storedFor(owner.id, projectId)).toHaveLength(1);
  });

  it('a title-only update refreshes the stored fields without a review; close and merge change the state; a push reviews the new head', async () => {
    const { owner, projectId, path, secret } = await connected();
    expect((await deliver(mergeRequestHook(projectId, path, { iid: 3, updated_at: '2026-01-01T00:00:00Z' }), secret)).statusCode).toBe(200);
    const [pr] = await storedFor(owner.id, projectId);
    const firstRun = (await reviewOf(pr!.prId))!.runId;

    await deliver(mergeRequestHook(projectId, path, { iid: 3, action: 'update', title: 'Renamed', updated_at: '2026-01-01T00:01:00Z' }, { title: { previous: 'x', current: 'Renamed' } }), secret);
    expect((await storedFor(owner.id, projectId))[0]).toMatchObject({ title: 'Renamed', state: 'open' });
    expect((await reviewOf(pr!.prId))!.runId).toBe(firstRun);

    const newHead = 'b'.repeat(40);
    await deliver(mergeRequestHook(projectId, path, { iid: 3, action: 'update', oldrev: pr!.headSha, last_commit: { id: newHead }, updated_at: '2026-01-01T00:02:00Z' }), secret);
    expect(await reviewOf(pr!.prId)).toMatchObject({ headSha: newHead, status: 'pending' });
    expect((await reviewOf(pr!.prId))!.runId).not.toBe(firstRun);

    await deliver(mergeRequestHook(projectId, path, { iid: 3, action: 'close', state: 'closed', last_commit: { id: newHead }, updated_at: '2026-01-01T00:03:00Z' }), secret);
    expect((await storedFor(owner.id, projectId))[0]).toMatchObject({ state: 'closed', merged: false });
    await deliver(mergeRequestHook(projectId, path, { iid: 3, action: 'merge', state: 'merged', last_commit: { id: newHead }, updated_at: '2026-01-01T00:04:00Z' }), secret);
    expect((await storedFor(owner.id, projectId))[0]).toMatchObject({ state: 'closed', merged: true });
  });

  it('a draft waits for its .ai-review.yml (no run at intake); a note outside a merge request is answered 200 and ignored', async () => {
    const { owner, projectId, path, secret } = await connected();
    await deliver(mergeRequestHook(projectId, path, { iid: 4, draft: true, work_in_progress: true }), secret);
    const [pr] = await storedFor(owner.id, projectId);
    expect(pr).toMatchObject({ draft: true });
    expect(await reviewOf(pr!.prId)).toBeUndefined();
    expect((await deliveriesOf(pr!.prId))[0]).toMatchObject({ awaitsConfig: true, startsReview: false, event: 'Merge Request Hook' });

    const note = fixture('note-hook-merge-request.json');
    note.project = { ...note.project, id: projectId };
    note.object_attributes = { ...note.object_attributes, noteable_type: 'Issue' };
    delete note.merge_request;
    expect((await deliver(note, secret, { 'x-gitlab-event': 'Note Hook' })).statusCode).toBe(200);
  });

  describe('connections cached by the webhook (decisions.md §12)', () => {
    const note = (projectId: number) => {
      const hook = fixture('note-hook-merge-request.json');
      hook.project = { ...hook.project, id: projectId };
      return hook;
    };

    it("a disconnected connection's token is refused right after the DELETE; a new connection of the project is accepted at once", async () => {
      const first = await connected();
      // Warm: the project's connections are cached.
      expect((await deliver(mergeRequestHook(first.projectId, first.path, { iid: 31 }), first.secret)).statusCode).toBe(200);

      const { second, secondSecret } = await connectedAgain(first.projectId, 8000, 'cached');
      expect((await deliver(mergeRequestHook(first.projectId, first.path, { iid: 32 }), secondSecret)).statusCode).toBe(200);
      expect(await storedFor(second.id, first.projectId)).toHaveLength(1);

      const disconnect = await t.app.inject({ method: 'DELETE', url: `/gitlab/connections/${first.connectionId}`, headers: { cookie: first.owner.cookie } });
      expect(disconnect.statusCode, disconnect.body).toBe(204);
      const refused = await deliver(mergeRequestHook(first.projectId, first.path, { iid: 33 }), first.secret);
      expect(refused.statusCode).toBe(401);
      expect(refused.json()).toEqual({ statusCode: 401, error: 'Unauthorized', message: 'Invalid X-Gitlab-Token' });
      expect((await deliver(note(first.projectId), first.secret, { 'x-gitlab-event': 'Note Hook' })).statusCode).toBe(401);
      expect((await storedFor(first.owner.id, first.projectId)).map((pr) => pr.prNumber)).toEqual([31]);
      // The other user's connection of the project still counts.
      expect((await deliver(mergeRequestHook(first.projectId, first.path, { iid: 34 }), secondSecret)).statusCode).toBe(200);
    });

    it("another process's changes count at once: a connection deleted, given a new secret or added in the database alone", async () => {
      const mine = await connected();
      expect((await deliver(mergeRequestHook(mine.projectId, mine.path, { iid: 41 }), mine.secret)).statusCode).toBe(200);
      const byId = eq(gitlabConnections.id, mine.connectionId);

      // A new secret: the cached one no longer stores anything, the new one is accepted.
      await t.app.db.update(gitlabConnections).set({ webhookSecret: t.app.secretBox.encrypt('rotated-secret') }).where(byId);
      expect((await deliver(mergeRequestHook(mine.projectId, mine.path, { iid: 42 }), mine.secret)).statusCode).toBe(401);
      expect((await deliver(mergeRequestHook(mine.projectId, mine.path, { iid: 43 }), 'rotated-secret')).statusCode).toBe(200);

      // Added elsewhere: a token no cached connection has is checked against the stored ones.
      const [row] = await t.app.db.select().from(gitlabConnections).where(byId);
      const other = await createAccount(t.app, t.outbox);
      const { id: _id, ...copy } = row!;
      await t.app.db.insert(gitlabConnections).values({ ...copy, userId: other.id, webhookSecret: t.app.secretBox.encrypt('added-secret') });
      expect((await deliver(mergeRequestHook(mine.projectId, mine.path, { iid: 44 }), 'added-secret')).statusCode).toBe(200);
      expect((await storedFor(other.id, mine.projectId)).map((pr) => pr.prNumber)).toEqual([44]);

      // Deleted elsewhere, while cached here: refused, nothing stored, no merge request key allocated.
      await t.app.db.delete(gitlabConnections).where(byId);
      expect((await deliver(mergeRequestHook(mine.projectId, mine.path, { iid: 45 }), 'rotated-secret')).statusCode).toBe(401);
      expect((await storedFor(mine.owner.id, mine.projectId)).map((pr) => pr.prNumber).sort()).toEqual([41, 43]);
      expect(await t.app.db.select().from(gitlabMergeRequests).where(eq(gitlabMergeRequests.connectionId, mine.connectionId))).toHaveLength(0);
    });

    it('the cache: an entry serves until its time is up, a forgotten project or connection is read again, the oldest project goes first', async () => {
      let clock = 0;
      const cache = new GitLabConnectionCache({ connections: t.app.repos.gitlabConnections, secretBox: t.app.secretBox, ttlMs: 1_000, maxProjects: 2, now: () => clock });
      const [a, b, c] = [await connected(), await connected(), await connected()];
      const ids = async (projectId: number) => (await cache.candidates(projectId)).map((candidate) => candidate.row.id);
      expect((await cache.candidates(a.projectId)).map((candidate) => candidate.secret)).toEqual([a.secret]);

      // Gone from the database, still cached here until the entry is due or forgotten.
      await t.app.db.delete(gitlabConnections).where(eq(gitlabConnections.id, a.connectionId));
      expect(await ids(a.projectId)).toEqual([a.connectionId]);
      clock += 1_001;
      expect(await ids(a.projectId)).toEqual([]);

      expect(await ids(b.projectId)).toEqual([b.connectionId]);
      await t.app.db.delete(gitlabConnections).where(eq(gitlabConnections.id, b.connectionId));
      await cache.forgetConnection(b.connectionId);
      expect(await ids(b.projectId)).toEqual([]);

      expect(await ids(c.projectId)).toEqual([c.connectionId]);
      await t.app.db.delete(gitlabConnections).where(eq(gitlabConnections.id, c.connectionId));
      expect(await ids(c.projectId)).toEqual([c.connectionId]);
      cache.forgetProject(c.projectId);
      expect(await ids(c.projectId)).toEqual([]);

      // Three projects in a cache of two: the first one read is read again.
      const [d, e, f] = [await connected(), await connected(), await connected()];
      for (const project of [d, e, f]) await ids(project.projectId);
      for (const project of [d, e, f]) await t.app.db.delete(gitlabConnections).where(eq(gitlabConnections.id, project.connectionId));
      expect(await ids(f.projectId)).toEqual([f.connectionId]);
      expect(await ids(e.projectId)).toEqual([e.connectionId]);
      expect(await ids(d.projectId)).toEqual([]);
    });

    it('concurrent first deliveries of one merge request share its key; a burst of new merge requests is stored whole', async () => {
      const { owner, projectId, path, secret } = await connected();
      const sameMr = Array.from({ length: 8 }, (_, i) => mergeRequestHook(projectId, path, { iid: 50, updated_at: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString() }));
      const burst = Array.from({ length: 30 }, (_, i) => mergeRequestHook(projectId, path, { iid: 100 + i }));
      const responses = await Promise.all([...sameMr, ...burst].map((hook) => deliver(hook, secret)));
      expect(responses.map((response) => response.statusCode)).toEqual(responses.map(() => 200));

      const stored = await storedFor(owner.id, projectId);
      expect(stored.map((pr) => pr.prNumber).sort((a, b) => a - b)).toEqual([50, ...burst.map((_, i) => 100 + i)]);
      expect(new Set(stored.map((pr) => pr.prId)).size).toBe(stored.length);
      const keys = await t.app.db.select().from(gitlabMergeRequests).where(eq(gitlabMergeRequests.iid, 50));
      const mr50 = stored.find((pr) => pr.prNumber === 50)!;
      expect(keys.filter((key) => key.prId === mr50.prId)).toHaveLength(1);
      expect(await deliveriesOf(mr50.prId)).toHaveLength(8);
      expect(mr50.updatedAt.toISOString()).toBe('2026-01-01T00:07:00.000Z');
    });
  });

  describe('errors', () => {
    it('422 for another event, 400 for a payload that is not a merge request hook, 415 for a body that is not JSON', async () => {
      const { projectId, path, secret } = await connected();
      const push = await deliver({ object_kind: 'push', project: { id: projectId } }, secret, { 'x-gitlab-event': 'Push Hook' });
      expect(push.statusCode).toBe(422);
      expect(push.json()).toMatchObject({ statusCode: 422, message: 'Unsupported event "Push Hook"' });
      const bad = mergeRequestHook(projectId, path);
      delete bad.object_attributes.iid;
      expect((await deliver(bad, secret)).statusCode).toBe(400);
      expect((await deliver({ ...mergeRequestHook(projectId, path), object_attributes: { ...mergeRequestHook(projectId, path).object_attributes, source_branch: 'x'.repeat(300) } }, secret)).statusCode).toBe(400);
      const text = await t.app.inject({ method: 'POST', url: '/webhook/gitlab', headers: { 'content-type': 'text/plain', 'x-gitlab-token': secret }, payload: 'hello' });
      expect(text.statusCode).toBe(415);
    });
  });

  describe('security', () => {
    it('401 for a forged, missing or other project\'s token, before the event or the body is looked at; nothing is stored', async () => {
      const mine = await connected();
      const other = await connected();
      for (const token of ['forged', undefined, other.secret, '']) {
        const response = await deliver(mergeRequestHook(mine.projectId, mine.path, { iid: 11 }), token);
        expect(response.statusCode).toBe(401);
        expect(response.json()).toEqual({ statusCode: 401, error: 'Unauthorized', message: 'Invalid X-Gitlab-Token' });
        expect((await deliver({ object_kind: 'push', project: { id: mine.projectId } }, token, { 'x-gitlab-event': 'Push Hook' })).statusCode).toBe(401);
      }
      expect(await deliver({ nothing: true }, mine.secret).then((response) => response.statusCode)).toBe(401);
      expect(await storedFor(mine.owner.id, mine.projectId)).toHaveLength(0);
    });

    it('a second user who connects the same project gets records of their own; neither sees the other\'s', async () => {
      const first = await connected();
      const { second, secondSecret } = await connectedAgain(first.projectId, 7000, 'second');
      const hook = mergeRequestHook(first.projectId, first.path, { iid: 21 });
      expect((await deliver(hook, first.secret)).statusCode).toBe(200);
      expect((await deliver(hook, secondSecret)).statusCode).toBe(200);
      const [mine] = await storedFor(first.owner.id, first.projectId);
      const [theirs] = await storedFor(second.id, first.projectId);
      expect(mine!.id).not.toBe(theirs!.id);
      expect(mine!.prId).not.toBe(theirs!.prId);
      const list = await t.app.inject({ method: 'GET', url: '/pull-request/list', headers: { cookie: second.cookie } });
      expect(JSON.stringify(list.json())).not.toContain(mine!.id);
      // Every :prId endpoint takes the merge request's UUID, and only for its owner.
      expect((await t.app.inject({ method: 'GET', url: `/review/information/${mine!.id}`, headers: { cookie: first.owner.cookie } })).json()).toEqual([expect.objectContaining({ prId: mine!.id, provider: 'gitlab' })]);
      for (const url of [`/review/information/${mine!.id}`, `/pull-request/diff/${mine!.id}`]) {
        expect((await t.app.inject({ method: 'GET', url, headers: { cookie: second.cookie } })).statusCode).toBe(404);
      }
      expect((await t.app.inject({ method: 'POST', url: `/review/${mine!.id}`, headers: { cookie: second.cookie }, payload: {} })).statusCode).toBe(404);
      // The internal negative key is no selector.
      expect((await t.app.inject({ method: 'GET', url: `/review/information/${mine!.prId}`, headers: { cookie: first.owner.cookie } })).statusCode).toBe(400);
    });
  });
});
