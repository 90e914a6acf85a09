import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../helpers/accounts.js';
import { appPullRequest, appWorld, deliver, installationPayload, newRepo, type AppWorld } from '../helpers/github-app-world.js';
import { githubUser, signInWithGitHub } from '../helpers/github-login.js';
import { deliverMergeRequest, expectStatus, gitlabConnected, orgsOfRepository } from '../helpers/org-installations.js';
import { callAs, createOrg, invite, joinedAccount } from '../helpers/orgs.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { ACCESS, FakeGitLab } from '../fakes/fake-gitlab.js';
import { BitbucketConnectionRepository } from '../../src/code-hosts/bitbucket/bitbucket-connection-repository.js';
import { gitlabConnections } from '../../src/code-hosts/gitlab/gitlab-tables.js';

/**
 * decisions.md §15: what a member held for an organization (installations, connections, the pull
 * requests stored under them) stays with the organization when they are removed, leave or delete
 * their account: it goes to the longest-standing other owner (or, with a clash, the next heir).
 */
describe('an installation outlives its installer', () => {
  let world: AppWorld;
  beforeAll(async () => {
    world = await appWorld();
  });
  afterAll(() => world.close());

  it("deleting the installer's account hands the organization's installation and pull requests to the longest-standing other owner; new pull requests are still stored", async () => {
    const { t, github } = world;
    const lead = await createAccount(t.app, t.outbox);
    const org = await createOrg(t.app, lead, 'Lasting Team');
    const coOwner = await joinedAccount(t.app, t.outbox, lead, org.id, 'owner', 'Second Owner');
    const installer = await signInWithGitHub(t.app, github);
    // The installer joins as an admin, invited by the lead.
    const { token } = await invite(t.app, t.outbox, lead, org.id, (await t.app.repos.users.findById(installer.userId))!.email, 'admin');
    expectStatus(await callAs(t.app, installer.cookie, 'POST', '/invitations/accept', { token }), 200);

    const repo = newRepo();
    const installationId = 4_600_000 + Math.floor(Math.random() * 90_000);
    github.install(installationId, [repo.full_name]);
    await deliver(t.app, 'installation', installationPayload('created', installationId, installer.githubId, [repo]));
    expectStatus(await callAs(t.app, installer.cookie, 'PATCH', `/github/installations/${installationId}`, { orgId: org.id }), 200);
    expectStatus(await deliver(t.app, 'pull_request', appPullRequest(installationId, repo, githubUser().id, { number: 1 })), 200);
    expect(await orgsOfRepository(t.app, { name: repo.full_name })).toEqual([{ orgId: org.id, userId: installer.userId }]);

    expectStatus(await callAs(t.app, installer.cookie, 'DELETE', '/users'), 204);
    expect(await t.app.repos.installations.find(installationId)).toMatchObject({ userId: lead.id, orgId: org.id });
    // The pull request stored under the installer stays, now under the heir; a new one is stored too.
    expect(await orgsOfRepository(t.app, { name: repo.full_name })).toEqual([{ orgId: org.id, userId: lead.id }]);
    expectStatus(await deliver(t.app, 'pull_request', appPullRequest(installationId, repo, githubUser().id, { number: 2 })), 200);
    expect(await orgsOfRepository(t.app, { name: repo.full_name })).toEqual([
      { orgId: org.id, userId: lead.id },
      { orgId: org.id, userId: lead.id },
    ]);
    for (const account of [lead, coOwner]) {
      expect((await callAs(t.app, account.cookie, 'GET', `/pull-request/list?org=${org.id}`)).json<unknown[]>()).toHaveLength(2);
    }
  });
});

describe("GitLab and Bitbucket connections outlive their owner's membership", () => {
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

  const connectionOf = async (id: string) => (await t.app.db.select().from(gitlabConnections).where(eq(gitlabConnections.id, id)))[0];

  /** A second connection of `project` by `cookie` (a user may hold one per project). */
  async function connectAgain(cookie: string, project: { id: number }, orgId?: string) {
    const maintainer = { id: 60_000 + Math.floor(Math.random() * 30_000), username: `again${Math.random().toString(36).slice(2, 8)}`, name: 'A' };
    gitlab.addMember(project.id, maintainer, ACCESS.maintainer);
    return callAs(t.app, cookie, 'POST', '/gitlab/connections', { baseUrl: gitlab.url, project: project.id, token: gitlab.issueToken(maintainer), ...(orgId === undefined ? {} : { orgId }) });
  }

  it("a removed admin's connection goes to the longest-standing owner with its merge requests; deleting the account later leaves it working", async () => {
    const lead = await createAccount(t.app, t.outbox);
    const org = await createOrg(t.app, lead, 'Connected Team');
    await joinedAccount(t.app, t.outbox, lead, org.id, 'owner', 'Later Owner');
    const leaver = await joinedAccount(t.app, t.outbox, lead, org.id, 'admin', 'Leaving Admin');
    const { response, project } = await gitlabConnected(t.app, gitlab, leaver.cookie, org.id);
    expectStatus(response, 201);
    const id = response.json<{ id: string }>().id;
    expectStatus(await deliverMergeRequest(t.app, gitlab, project, 1), 200);
    expect(await orgsOfRepository(t.app, { id: String(project.id) })).toEqual([{ orgId: org.id, userId: leaver.id }]);

    expectStatus(await callAs(t.app, lead.cookie, 'DELETE', `/orgs/${org.id}/members/${leaver.id}`), 204);
    expect(await connectionOf(id)).toMatchObject({ userId: lead.id, orgId: org.id });
    expect(await orgsOfRepository(t.app, { id: String(project.id) })).toEqual([{ orgId: org.id, userId: lead.id }]);
    // The one who left no longer manages it.
    expectStatus(await callAs(t.app, leaver.cookie, 'DELETE', `/gitlab/connections/${id}`), 404);

    expectStatus(await callAs(t.app, leaver.cookie, 'DELETE', '/users'), 204);
    expect(await connectionOf(id)).toMatchObject({ userId: lead.id, orgId: org.id });
    expectStatus(await deliverMergeRequest(t.app, gitlab, project, 2), 200);
    expect(await orgsOfRepository(t.app, { id: String(project.id) })).toEqual([
      { orgId: org.id, userId: lead.id },
      { orgId: org.id, userId: lead.id },
    ]);
  });

  it('a member who leaves, or deletes their account, hands over; an heir who already holds a connection of the project is passed over for the next', async () => {
    const lead = await createAccount(t.app, t.outbox);
    const org = await createOrg(t.app, lead, 'Clashing Team');
    const admin = await joinedAccount(t.app, t.outbox, lead, org.id, 'admin', 'Team Admin');
    const leaver = await joinedAccount(t.app, t.outbox, lead, org.id, 'admin', 'Leaving Admin');
    // The lead holds a personal connection of the project: the leaver's organization connection of it goes to the admin.
    const { response: leads, project } = await gitlabConnected(t.app, gitlab, lead.cookie);
    expectStatus(leads, 201);
    const theirs = await connectAgain(leaver.cookie, project, org.id);
    expectStatus(theirs, 201);
    const { response: other } = await gitlabConnected(t.app, gitlab, leaver.cookie, org.id);
    // A personal connection of the leaver stays theirs.
    const { response: personal } = await gitlabConnected(t.app, gitlab, leaver.cookie);

    // Leaving by oneself.
    expectStatus(await callAs(t.app, leaver.cookie, 'DELETE', `/orgs/${org.id}/members/${leaver.id}`), 204);
    expect(await connectionOf(theirs.json<{ id: string }>().id)).toMatchObject({ userId: admin.id, orgId: org.id });
    expect(await connectionOf(other.json<{ id: string }>().id)).toMatchObject({ userId: lead.id, orgId: org.id });
    expect(await connectionOf(personal.json<{ id: string }>().id)).toMatchObject({ userId: leaver.id, orgId: null });

    // A member who deletes their account while still in the organization hands over too.
    const member = await joinedAccount(t.app, t.outbox, lead, org.id, 'member', 'Plain Member');
    const { response: owned } = await gitlabConnected(t.app, gitlab, lead.cookie, org.id);
    const ownedId = owned.json<{ id: string }>().id;
    // As if it had been moved in by them when they were an admin.
    await t.app.db.update(gitlabConnections).set({ userId: member.id }).where(eq(gitlabConnections.id, ownedId));
    const bitbucket = new BitbucketConnectionRepository(t.app.db);
    const base = { workspace: 'acme', repoSlug: 'widgets', repositoryUuid: `{${crypto.randomUUID()}}`, fullName: 'acme/widgets', htmlUrl: 'https://bitbucket.example/acme/widgets', token: 'sealed', webhookSecret: 'sealed', hookUuid: '{hook}' };
    const held = await bitbucket.create({ ...base, userId: member.id, orgId: org.id });
    const own = await bitbucket.create({ ...base, repositoryUuid: `{${crypto.randomUUID()}}`, userId: member.id });
    expectStatus(await callAs(t.app, member.cookie, 'DELETE', '/users'), 204);
    expect(await connectionOf(ownedId)).toMatchObject({ userId: lead.id, orgId: org.id });
    expect(await bitbucket.find(held.id)).toMatchObject({ userId: lead.id, orgId: org.id });
    // The account's personal connection goes with it.
    expect(await bitbucket.find(own.id)).toBeUndefined();
  });
});

describe("disconnecting an organization's GitLab connection", () => {
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

  it("an admin of its organization disconnects it (its webhook removed); a member gets 403, another organization's admin and a stranger 404", async () => {
    const lead = await createAccount(t.app, t.outbox);
    const org = await createOrg(t.app, lead, 'Disconnecting Team');
    const admin = await joinedAccount(t.app, t.outbox, lead, org.id, 'admin', 'Team Admin');
    const member = await joinedAccount(t.app, t.outbox, lead, org.id, 'member', 'Team Member');
    const stranger = await createAccount(t.app, t.outbox);
    const otherOrg = await createOrg(t.app, stranger, 'Other Team');
    const { response, project } = await gitlabConnected(t.app, gitlab, lead.cookie, org.id);
    expectStatus(response, 201);
    const id = response.json<{ id: string }>().id;

    expectStatus(await callAs(t.app, member.cookie, 'DELETE', `/gitlab/connections/${id}`), 403);
    expectStatus(await callAs(t.app, stranger.cookie, 'DELETE', `/gitlab/connections/${id}`), 404);
    expect(otherOrg.role).toBe('owner');
    expectStatus(await callAs(t.app, stranger.cookie, 'DELETE', `/gitlab/connections/${id.toUpperCase()}`), 404);
    expect(gitlab.project(project.id).hooks).toHaveLength(1);
    expect(await t.app.repos.gitlabConnections.find(id)).toBeDefined();

    expectStatus(await callAs(t.app, admin.cookie, 'DELETE', `/gitlab/connections/${id}`), 204);
    expect(gitlab.project(project.id).hooks).toHaveLength(0);
    expect(await t.app.repos.gitlabConnections.find(id)).toBeUndefined();
    expect((await callAs(t.app, lead.cookie, 'GET', '/gitlab/connections')).json()).toEqual([]);
    expectStatus(await callAs(t.app, admin.cookie, 'DELETE', `/gitlab/connections/${id}`), 404);

    // A personal connection is still its owner's alone: an admin of an organization the owner is in cannot touch it.
    const { response: personal } = await gitlabConnected(t.app, gitlab, lead.cookie);
    expectStatus(await callAs(t.app, admin.cookie, 'DELETE', `/gitlab/connections/${personal.json<{ id: string }>().id}`), 404);
    expectStatus(await callAs(t.app, lead.cookie, 'DELETE', `/gitlab/connections/${personal.json<{ id: string }>().id}`), 204);
  });
});
