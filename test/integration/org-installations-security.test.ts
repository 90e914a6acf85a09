import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Account } from '../helpers/accounts.js';
import { createAccount } from '../helpers/accounts.js';
import { appWorld, deliver, installationPayload, newRepo, type AppWorld } from '../helpers/github-app-world.js';
import { signInWithGitHub } from '../helpers/github-login.js';
import { expectStatus, gitlabConnected } from '../helpers/org-installations.js';
import { callAs, createOrg, joinedAccount } from '../helpers/orgs.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { FakeGitLab } from '../fakes/fake-gitlab.js';

type Audit = { items: Array<{ action: string }> };

/** decisions.md §15: only who manages an installation or a connection moves it, and only into an organization they administer. */
describe('moving installations: errors and security', () => {
  let world: AppWorld;
  beforeAll(async () => {
    world = await appWorld();
  });
  afterAll(() => world.close());

  let next = 4_400_000 + Math.floor(Math.random() * 90_000);
  async function installed() {
    const signedIn = await signInWithGitHub(world.t.app, world.github);
    const installationId = next++;
    await deliver(world.t.app, 'installation', installationPayload('created', installationId, signedIn.githubId, [newRepo()]));
    return { owner: { id: signedIn.userId, cookie: signedIn.cookie } as Account, installationId };
  }
  const move = (cookie: string | undefined, id: number | string, payload: object) => callAs(world.t.app, cookie, 'PATCH', `/github/installations/${id}`, payload);
  const orgOf = async (id: number) => (await world.t.app.repos.installations.find(id))?.orgId;

  it('errors: no session 401; a body without orgId or with a number 400; an id that is no installation 404; an organization that does not exist 404', async () => {
    const { owner, installationId } = await installed();
    expectStatus(await move(undefined, installationId, { orgId: null }), 401);
    const missing = await move(owner.cookie, installationId, {});
    expectStatus(missing, 400);
    expect(missing.json()).toMatchObject({ statusCode: 400, error: 'Bad Request', details: expect.any(Array) });
    expectStatus(await move(owner.cookie, installationId, { orgId: 5 }), 400);
    for (const id of ['abc', '99999999999', '1e3']) expect((await move(owner.cookie, id, { orgId: null })).json()).toMatchObject({ statusCode: 404, error: 'Not Found' });
    for (const orgId of ['not-an-org', '00000000-0000-4000-8000-000000000000']) expectStatus(await move(owner.cookie, installationId, { orgId }), 404);
    // Out of no organization: already personal, nothing changes.
    expect((await move(owner.cookie, installationId, { orgId: null })).json()).toMatchObject({ orgId: null });
    expect(await orgOf(installationId)).toBeNull();
  });

  it("another user's installation is 404, whatever the target; a non-member cannot move into an organization (404), a member who is not an admin cannot (403)", async () => {
    const { t } = world;
    const { owner, installationId } = await installed();
    const stranger = await createAccount(t.app, t.outbox);
    const strangersOrg = await createOrg(t.app, stranger, 'Stranger Co');
    expectStatus(await move(stranger.cookie, installationId, { orgId: strangersOrg.id }), 404);
    expectStatus(await move(stranger.cookie, installationId, { orgId: null }), 404);

    // Into an organization the caller is not in: 404, as if it did not exist.
    expectStatus(await move(owner.cookie, installationId, { orgId: strangersOrg.id }), 404);
    // Into one the caller is a member of, not an admin: 403.
    await t.app.repos.organizations.addMember({ orgId: strangersOrg.id, userId: owner.id, role: 'member' }, t.app.db);
    expectStatus(await move(owner.cookie, installationId, { orgId: strangersOrg.id }), 403);
    expect(await orgOf(installationId)).toBeNull();

    // In the owner's own organization, a member who is not an admin cannot move it out (403), a non-member sees nothing (404).
    const ownerOrg = await createOrg(t.app, owner, 'Owner Co');
    expectStatus(await move(owner.cookie, installationId, { orgId: ownerOrg.id }), 200);
    const member = await joinedAccount(t.app, t.outbox, owner, ownerOrg.id, 'member');
    expectStatus(await move(member.cookie, installationId, { orgId: null }), 403);
    expectStatus(await move(stranger.cookie, installationId, { orgId: null }), 404);
    expect(await orgOf(installationId)).toBe(ownerOrg.id);
    const audit = (await callAs(t.app, owner.cookie, 'GET', `/orgs/${ownerOrg.id}/audit`)).json<Audit>();
    expect(audit.items.filter((item) => item.action === 'installation.moved')).toHaveLength(1);
    expect((await callAs(t.app, stranger.cookie, 'GET', `/orgs/${strangersOrg.id}/audit`)).json<Audit>().items.map((item) => item.action)).not.toContain('installation.moved');
  });
});

describe('moving GitLab connections: errors and security', () => {
  let gitlab: FakeGitLab;
  let t: TestApp;
  beforeAll(async () => {
    gitlab = await new FakeGitLab().start();
    t = await createTestApp({ role: 'api', env: { PUBLIC_URL: 'https://review.example.test' } });
  });
  afterAll(async () => {
    await t.close();
    await gitlab.stop();
  });
  const move = (cookie: string | undefined, id: string, payload: object) => callAs(t.app, cookie, 'PATCH', `/gitlab/connections/${id}`, payload);

  it("errors: 401, 400, an id that is no connection 404; another user's connection 404; a member (not admin) of the target 403, a non-member 404", async () => {
    const owner = await createAccount(t.app, t.outbox);
    const { response } = await gitlabConnected(t.app, gitlab, owner.cookie);
    expectStatus(response, 201);
    const id = response.json<{ id: string }>().id;
    expectStatus(await move(undefined, id, { orgId: null }), 401);
    expectStatus(await move(owner.cookie, id, { orgId: 1 }), 400);
    expectStatus(await move(owner.cookie, 'not-a-uuid', { orgId: null }), 404);
    expectStatus(await move(owner.cookie, '00000000-0000-4000-8000-000000000000', { orgId: null }), 404);

    const stranger = await createAccount(t.app, t.outbox);
    const strangersOrg = await createOrg(t.app, stranger, 'Elsewhere');
    expectStatus(await move(stranger.cookie, id, { orgId: strangersOrg.id }), 404);
    expectStatus(await move(owner.cookie, id, { orgId: strangersOrg.id }), 404);
    const joined = await joinedAccount(t.app, t.outbox, stranger, strangersOrg.id, 'member');
    const { response: theirs } = await gitlabConnected(t.app, gitlab, joined.cookie);
    expectStatus(await move(joined.cookie, theirs.json<{ id: string }>().id, { orgId: strangersOrg.id }), 403);

    // Connecting straight into an organization needs admin+ too, checked before GitLab is called.
    const hooksBefore = gitlab.project(theirs.json<{ project: { id: number } }>().project.id).hooks.length;
    const { response: refused, project } = await gitlabConnected(t.app, gitlab, joined.cookie, strangersOrg.id);
    expectStatus(refused, 403);
    expect(gitlab.project(project.id).hooks).toHaveLength(0);
    expect(hooksBefore).toBe(1);
    const { response: outsider } = await gitlabConnected(t.app, gitlab, owner.cookie, strangersOrg.id);
    expectStatus(outsider, 404);
    expect((await callAs(t.app, stranger.cookie, 'GET', '/gitlab/connections')).json()).toEqual([]);
  });
});
