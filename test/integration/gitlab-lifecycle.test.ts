import { readFileSync } from 'node:fs';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pullRequests } from '../../src/db/schema/index.js';
import { createAccount, type Account } from '../helpers/accounts.js';
import { reviewAnswer, type ReviewInformation } from '../helpers/review-fixtures.js';
import { reviewWorld, type ReviewWorld } from '../helpers/review-world.js';
import { ACCESS, FakeGitLab, type FakeDiffEntry } from '../fakes/fake-gitlab.js';

const BASE = 'a'.repeat(40);
const HEAD = 'c'.repeat(40);
const GREET: FakeDiffEntry = {
  old_path: 'src/greet.ts',
  new_path: 'src/greet.ts',
  a_mode: '0',
  b_mode: '100644',
  diff: "@@ -0,0 +1,3 @@\n+export function greet(name: string) {\n+  return 'Hello ' + name;\n+}\n",
  new_file: true,
  renamed_file: false,
  deleted_file: false,
};

type Information = ReviewInformation & { publication: { state: string } };

/** A merge request's life after its review, a failed review, disconnecting, and a self-managed instance on a sub-path. */
describe('GitLab merge requests: updates, failures, disconnecting, self-managed', () => {
  let world: ReviewWorld;
  let owner: Account;
  const bot = { id: 5001, username: 'review-bot', name: 'Review bot' };
  const author = { id: 5002, username: 'dev', name: 'Dev' };

  beforeAll(async () => {
    world = await reviewWorld({ PUBLIC_URL: 'https://review.example.test' });
    owner = await createAccount(world.t.app, world.t.outbox);
    world.model.reply(() => ({ text: reviewAnswer([]) }));
  });
  afterAll(() => world.close());

  /** A project on `gitlab` connected by the owner: its id, the hook's secret and the connection's id. */
  const connect = async (gitlab: FakeGitLab, path: string) => {
    const project = gitlab.addProject(path);
    gitlab.addMember(project.id, bot, ACCESS.maintainer);
    gitlab.addMember(project.id, author, ACCESS.developer);
    const connected = await world.t.app.inject({ method: 'POST', url: '/gitlab/connections', headers: { cookie: owner.cookie }, payload: { baseUrl: gitlab.url, project: path, token: gitlab.issueToken(bot) } });
    expect(connected.statusCode, connected.body).toBe(201);
    return { gitlab, projectId: project.id, path, secret: project.hooks.at(-1)!.token!, connectionId: connected.json<{ id: string }>().id };
  };
  type Connected = Awaited<ReturnType<typeof connect>>;

  const deliver = (to: Connected, iid: number, attributes: Record<string, unknown>, changes: object = {}) => {
    const payload = JSON.parse(readFileSync(new URL('../fixtures/gitlab/merge-request-hook.json', import.meta.url), 'utf8')) as { project: object; object_attributes: object; changes: object };
    payload.project = { ...payload.project, id: to.projectId, path_with_namespace: to.path, web_url: `${to.gitlab.url}/${to.path}` };
    payload.object_attributes = { ...payload.object_attributes, iid, url: `${to.gitlab.url}/${to.path}/-/merge_requests/${iid}`, last_commit: { id: HEAD }, draft: false, work_in_progress: false, ...attributes };
    payload.changes = changes;
    return world.t.app.inject({ method: 'POST', url: '/webhook/gitlab', headers: { 'content-type': 'application/json', 'x-gitlab-event': 'Merge Request Hook', 'x-gitlab-token': to.secret }, payload: JSON.stringify(payload) });
  };
  const row = async (to: Connected, iid: number) =>
    (await world.t.app.db.select().from(pullRequests).where(and(eq(pullRequests.repositoryId, String(to.projectId)), eq(pullRequests.prNumber, iid))))[0];
  const settled = async (prId: string) => {
    let latest: Information | undefined;
    await expect
      .poll(async () => (latest = (await world.t.app.inject({ method: 'GET', url: `/review/information/${prId}`, headers: { cookie: owner.cookie } })).json<Information[]>()[0]), { timeout: 20_000, interval: 50 })
      .toSatisfy((review: Information | undefined) => review !== undefined && review.reviewStatus !== 'pending' && review.publication.state === 'published');
    return latest!;
  };
  /** Opens a merge request on the fake and delivers its `open` event; its record's id once reviewed and published. */
  const openReviewed = async (to: Connected, iid: number) => {
    to.gitlab.openMergeRequest(to.projectId, iid, { author, title: `Merge request ${iid}`, diffRefs: { base_sha: BASE, start_sha: BASE, head_sha: HEAD }, diffs: [GREET] });
    expect((await deliver(to, iid, { action: 'open', state: 'opened', title: `Merge request ${iid}`, updated_at: '2026-02-01T10:00:00Z' })).statusCode).toBe(200);
    await expect.poll(() => row(to, iid)).toBeDefined();
    const prId = (await row(to, iid))!.id;
    return { prId, review: await settled(prId) };
  };

  it('a title-only update refreshes the title without a review; close and merge set the state', async () => {
    const gitlab = await new FakeGitLab().start();
    try {
      const to = await connect(gitlab, 'shop/lifecycle');
      const { prId } = await openReviewed(to, 1);
      const modelCalls = world.model.requests.length;
      const statuses = gitlab.project(to.projectId).statuses.length;

      const renamed = await deliver(to, 1, { action: 'update', state: 'opened', title: 'Greet people', updated_at: '2026-02-01T11:00:00Z' }, { title: { previous: 'Merge request 1', current: 'Greet people' } });
      expect(renamed.statusCode).toBe(200);
      await expect.poll(async () => (await row(to, 1))!.title).toBe('Greet people');
      const information = (await world.t.app.inject({ method: 'GET', url: `/review/information/${prId}`, headers: { cookie: owner.cookie } })).json<Information[]>();
      expect(information).toHaveLength(1);
      expect(world.model.requests.length).toBe(modelCalls);
      expect(gitlab.project(to.projectId).statuses).toHaveLength(statuses);

      expect((await deliver(to, 1, { action: 'merge', state: 'merged', title: 'Greet people', updated_at: '2026-02-01T12:00:00Z' })).statusCode).toBe(200);
      await expect.poll(async () => (await row(to, 1))!.merged).toBe(true);
      expect((await row(to, 1))!.state).toBe('closed');

      // A draft (not reviewed by default) closed without merging.
      expect((await deliver(to, 2, { action: 'open', state: 'opened', draft: true, title: 'Draft: later', updated_at: '2026-02-01T10:00:00Z' })).statusCode).toBe(200);
      expect((await deliver(to, 2, { action: 'close', state: 'closed', draft: true, title: 'Draft: later', updated_at: '2026-02-01T13:00:00Z' })).statusCode).toBe(200);
      await expect.poll(async () => (await row(to, 2))?.state).toBe('closed');
      expect((await row(to, 2))!.merged).toBe(false);
    } finally {
      await gitlab.stop();
    }
  });

  it('a failed review: the commit status is failed with "Review failed..." and nothing else is posted', async () => {
    const gitlab = await new FakeGitLab().start();
    try {
      const to = await connect(gitlab, 'shop/failing');
      world.model.reply(() => ({ status: 400, message: 'This model is not available' }));
      const { review } = await openReviewed(to, 3);
      expect(review.reviewStatus).toBe('failed');
      const last = gitlab.project(to.projectId).statuses.filter((status) => status.sha === HEAD).at(-1)!;
      expect(last).toMatchObject({ status: 'failed', name: 'AI review' });
      expect(last.description).toMatch(/^Review failed/);
      expect(gitlab.mergeRequest(to.projectId, 3).discussions.filter((discussion) => discussion.notes[0]!.type === 'DiffNote')).toEqual([]);
    } finally {
      world.model.reply(() => ({ text: reviewAnswer([]) }));
      await gitlab.stop();
    }
  });

  it('disconnecting removes the webhook on GitLab; later deliveries with its secret are 401', async () => {
    const gitlab = await new FakeGitLab().start();
    try {
      const to = await connect(gitlab, 'shop/leaving');
      const removed = await world.t.app.inject({ method: 'DELETE', url: `/gitlab/connections/${to.connectionId}`, headers: { cookie: owner.cookie } });
      expect(removed.statusCode, removed.body).toBe(204);
      expect(gitlab.project(to.projectId).hooks).toEqual([]);
      gitlab.openMergeRequest(to.projectId, 4, { author, diffRefs: { base_sha: BASE, start_sha: BASE, head_sha: HEAD }, diffs: [GREET] });
      const late = await deliver(to, 4, { action: 'open', state: 'opened' });
      expect(late.statusCode).toBe(401);
      expect(late.json()).toMatchObject({ statusCode: 401, error: 'Unauthorized', message: 'Invalid X-Gitlab-Token' });
      expect(await row(to, 4)).toBeUndefined();
    } finally {
      await gitlab.stop();
    }
  });

  it('a self-managed instance on a sub-path (/gitlab/api/v4): connected, reviewed and posted there', async () => {
    const gitlab = await new FakeGitLab('/gitlab').start();
    try {
      expect(gitlab.url).toMatch(/\/gitlab$/);
      const to = await connect(gitlab, 'platform/api');
      const { review } = await openReviewed(to, 5);
      expect(review.reviewStatus).toBe('completed');
      expect(gitlab.requests.length).toBeGreaterThan(0);
      expect(gitlab.project(to.projectId).statuses.map((status) => status.status)).toEqual(['running', 'success']);
      expect(gitlab.mergeRequest(to.projectId, 5).discussions.flatMap((discussion) => discussion.notes).some((note) => note.body.startsWith('<!-- ai-review:summary -->'))).toBe(true);
    } finally {
      await gitlab.stop();
    }
  });
});
