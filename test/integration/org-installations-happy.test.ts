import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Account } from '../helpers/accounts.js';
import { createAccount } from '../helpers/accounts.js';
import { appPullRequest, appWorld, deliver, installationPayload, newRepo, type AppWorld } from '../helpers/github-app-world.js';
import { githubUser, signInWithGitHub } from '../helpers/github-login.js';
import { deliverMergeRequest, expectStatus, gitlabConnected, orgsOfRepository } from '../helpers/org-installations.js';
import { callAs, createOrg, joinedAccount, type Org } from '../helpers/orgs.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { FakeGitLab } from '../fakes/fake-gitlab.js';

interface Installation {
  id: number;
  orgId: string | null;
}

/** decisions.md §15, what an organization owns: installations and connections move in and out, with their pull requests. */
describe('organizations own installations: happy path', () => {
  let world: AppWorld;
  beforeAll(async () => {
    world = await appWorld();
  });
  afterAll(() => world.close());

  it('an installation moves into an organization with its pull requests; later ones arrive as the organization’s; an admin moves it out; deleting the organization returns it', async () => {
    const { t, github } = world;
    const app = t.app;
    const signedIn = await signInWithGitHub(app, github);
    const lead = { cookie: signedIn.cookie } as Account;
    const repo = newRepo();
    const installationId = 4_300_000 + Math.floor(Math.random() * 90_000);
    await deliver(app, 'installation', installationPayload('created', installationId, signedIn.githubId, [repo]));
    const before = appPullRequest(installationId, repo, githubUser().id, { number: 1 });
    expectStatus(await deliver(app, 'pull_request', before), 200);
    expect(await orgsOfRepository(app, { name: repo.full_name })).toEqual([{ orgId: null, userId: signedIn.userId }]);

    const org: Org = await createOrg(app, lead, 'Installing Team');
    const admin = await joinedAccount(app, t.outbox, lead, org.id, 'admin', 'Team Admin');
    const member = await joinedAccount(app, t.outbox, lead, org.id, 'member', 'Team Member');
    const moved = await callAs(app, lead.cookie, 'PATCH', `/github/installations/${installationId}`, { orgId: org.id });
    expectStatus(moved, 200);
    expect(moved.json()).toMatchObject({ id: installationId, orgId: org.id, account: { login: `org-${installationId}` } });
    // The pull request that came before moves with it.
    expect(await orgsOfRepository(app, { name: repo.full_name })).toEqual([{ orgId: org.id, userId: signedIn.userId }]);

    // Every member lists it, with its organization.
    for (const account of [lead, admin, member]) {
      const list = await callAs(app, account.cookie, 'GET', '/github/installations');
      expect(list.json<Installation[]>().filter((item) => item.id === installationId)).toEqual([expect.objectContaining({ orgId: org.id })]);
    }

    // One arriving through it now belongs to the organization.
    expectStatus(await deliver(app, 'pull_request', appPullRequest(installationId, repo, githubUser().id, { number: 2 })), 200);
    expect((await orgsOfRepository(app, { name: repo.full_name })).map((row) => row.orgId)).toEqual([org.id, org.id]);

    const audit = await callAs(app, lead.cookie, 'GET', `/orgs/${org.id}/audit`);
    expect(audit.json<{ items: Array<{ action: string; target: string; details: object }> }>().items[0]).toMatchObject({
      action: 'installation.moved',
      target: `org-${installationId}`,
      details: { from: null, to: org.id },
    });

    // An admin moves it out: it is the admin's personal installation now, its pull requests personal.
    const out = await callAs(app, admin.cookie, 'PATCH', `/github/installations/${installationId}`, { orgId: null });
    expectStatus(out, 200);
    expect(out.json()).toMatchObject({ id: installationId, orgId: null });
    expect((await orgsOfRepository(app, { name: repo.full_name })).map((row) => row.orgId)).toEqual([null, null]);
    expect((await callAs(app, member.cookie, 'GET', '/github/installations')).json<Installation[]>().map((item) => item.id)).not.toContain(installationId);
    expect((await callAs(app, admin.cookie, 'GET', '/github/installations')).json<Installation[]>().map((item) => item.id)).toContain(installationId);
    const outAudit = await callAs(app, lead.cookie, 'GET', `/orgs/${org.id}/audit`);
    expect(outAudit.json<{ items: Array<{ action: string; details: object }> }>().items[0]).toMatchObject({ action: 'installation.moved', details: { from: org.id, to: null } });

    // In again, then the organization is deleted: the installation returns to the deleting owner.
    expectStatus(await callAs(app, admin.cookie, 'PATCH', `/github/installations/${installationId}`, { orgId: org.id }), 200);
    expectStatus(await callAs(app, lead.cookie, 'DELETE', `/orgs/${org.id}`), 204);
    const mine = (await callAs(app, lead.cookie, 'GET', '/github/installations')).json<Installation[]>();
    expect(mine.filter((item) => item.id === installationId)).toEqual([expect.objectContaining({ orgId: null })]);
  });
});

describe('organizations own GitLab connections: happy path', () => {
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

  it('a connection made into an organization stores its merge requests as the organization’s; a personal one moves in with its merge requests, and out', async () => {
    const lead = await createAccount(t.app, t.outbox);
    const org = await createOrg(t.app, lead, 'GitLab Team');
    const member = await joinedAccount(t.app, t.outbox, lead, org.id, 'member');

    const { response: created, project } = await gitlabConnected(t.app, gitlab, lead.cookie, org.id);
    expectStatus(created, 201);
    expect(created.json()).toMatchObject({ orgId: org.id });
    expectStatus(await deliverMergeRequest(t.app, gitlab, project, 1), 200);
    expect(await orgsOfRepository(t.app, { id: String(project.id) })).toEqual([{ orgId: org.id, userId: lead.id }]);
    const listed = (await callAs(t.app, member.cookie, 'GET', '/gitlab/connections')).json<Array<{ id: string; orgId: string | null }>>();
    expect(listed).toEqual([expect.objectContaining({ id: created.json<{ id: string }>().id, orgId: org.id, status: 'active' })]);

    const { response: personal, project: own } = await gitlabConnected(t.app, gitlab, lead.cookie);
    expectStatus(personal, 201);
    expect(personal.json()).toMatchObject({ orgId: null });
    expectStatus(await deliverMergeRequest(t.app, gitlab, own, 4), 200);
    expect(await orgsOfRepository(t.app, { id: String(own.id) })).toEqual([{ orgId: null, userId: lead.id }]);

    const id = personal.json<{ id: string }>().id;
    const moved = await callAs(t.app, lead.cookie, 'PATCH', `/gitlab/connections/${id}`, { orgId: org.id });
    expectStatus(moved, 200);
    expect(moved.json()).toMatchObject({ id, orgId: org.id, project: { id: own.id } });
    expect(await orgsOfRepository(t.app, { id: String(own.id) })).toEqual([{ orgId: org.id, userId: lead.id }]);
    const audit = (await callAs(t.app, lead.cookie, 'GET', `/orgs/${org.id}/audit`)).json<{ items: Array<{ action: string; target: string }> }>();
    expect(audit.items[0]).toMatchObject({ action: 'connection.moved', target: own.path });

    expectStatus(await callAs(t.app, lead.cookie, 'PATCH', `/gitlab/connections/${id}`, { orgId: null }), 200);
    expect(await orgsOfRepository(t.app, { id: String(own.id) })).toEqual([{ orgId: null, userId: lead.id }]);
    expectStatus(await deliverMergeRequest(t.app, gitlab, own, 5), 200);
    expect((await orgsOfRepository(t.app, { id: String(own.id) })).map((row) => row.orgId)).toEqual([null, null]);
  });
});
