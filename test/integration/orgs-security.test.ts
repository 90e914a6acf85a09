import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, type Account } from '../helpers/accounts.js';
import { callAs, createOrg, invite, joinedAccount, type Org } from '../helpers/orgs.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** decisions.md §15: nobody outside an organization sees or changes anything of it; roles hold from the next request. */
describe('organizations: security', () => {
  let t: TestApp;
  let lead: Account;
  let admin: Account;
  let member: Account;
  let org: Org;
  let pendingId: string;
  beforeAll(async () => {
    t = await createTestApp({ role: 'api' });
    lead = await createAccount(t.app, t.outbox, { name: 'Lead' });
    org = await createOrg(t.app, lead, 'Secure Co');
    admin = await joinedAccount(t.app, t.outbox, lead, org.id, 'admin', 'Admin');
    member = await joinedAccount(t.app, t.outbox, lead, org.id, 'member', 'Member');
    pendingId = (await invite(t.app, t.outbox, lead, org.id, 'pending@example.com')).invitation.id;
  });
  afterAll(() => t.close());
  const call = (cookie: string | undefined, method: Method, url: string, payload?: object) => callAs(t.app, cookie, method, url, payload);

  /** Every organization path, with a body each would accept. */
  const everyPath = (orgId: string, userId: string, invitationId: string): Array<[Method, string, object?]> => [
    ['GET', `/orgs/${orgId}`],
    ['PATCH', `/orgs/${orgId}`, { name: 'Taken over' }],
    ['DELETE', `/orgs/${orgId}`],
    ['GET', `/orgs/${orgId}/members`],
    ['PATCH', `/orgs/${orgId}/members/${userId}`, { role: 'admin' }],
    ['DELETE', `/orgs/${orgId}/members/${userId}`],
    ['POST', `/orgs/${orgId}/invitations`, { email: 'spy@example.com', role: 'member' }],
    ['GET', `/orgs/${orgId}/invitations`],
    ['DELETE', `/orgs/${orgId}/invitations/${invitationId}`],
    ['GET', `/orgs/${orgId}/audit`],
  ];

  it('a non-member gets 404 on every path, malformed ids included, and nothing changes', async () => {
    const outsider = await createAccount(t.app, t.outbox);
    for (const orgId of [org.id, org.id.toUpperCase(), 'not-a-uuid', '00000000-0000-4000-8000-000000000000']) {
      for (const [method, url, payload] of everyPath(orgId, member.id, pendingId)) {
        const response = await call(outsider.cookie, method, url, payload);
        expect(response.statusCode, `${method} ${url}`).toBe(404);
        expect(response.json()).toEqual({ statusCode: 404, error: 'Not Found', message: expect.any(String) });
      }
    }
    expect((await call(lead.cookie, 'GET', `/orgs/${org.id}`)).json()).toMatchObject({ name: 'Secure Co' });
    expect((await call(lead.cookie, 'GET', `/orgs/${org.id}/members`)).json()).toHaveLength(3);
  });

  it('a member gets 403 for every admin action, and reads what members read', async () => {
    for (const [method, url, payload] of everyPath(org.id, admin.id, pendingId)) {
      if (url === `/orgs/${org.id}` && method === 'GET') continue;
      if (url.endsWith('/members') && method === 'GET') continue;
      const response = await call(member.cookie, method, url, payload);
      expect(response.statusCode, `${method} ${url}`).toBe(403);
    }
    expect((await call(member.cookie, 'GET', `/orgs/${org.id}`)).statusCode).toBe(200);
    expect((await call(member.cookie, 'GET', `/orgs/${org.id}/members`)).statusCode).toBe(200);
    expect((await call(lead.cookie, 'GET', `/orgs/${org.id}`)).json()).toMatchObject({ name: 'Secure Co' });
  });

  it('an admin never acts on an owner nor makes one (403), and cannot delete the organization', async () => {
    expect((await call(admin.cookie, 'PATCH', `/orgs/${org.id}/members/${lead.id}`, { role: 'member' })).statusCode).toBe(403);
    expect((await call(admin.cookie, 'DELETE', `/orgs/${org.id}/members/${lead.id}`)).statusCode).toBe(403);
    expect((await call(admin.cookie, 'PATCH', `/orgs/${org.id}/members/${member.id}`, { role: 'owner' })).statusCode).toBe(403);
    expect((await call(admin.cookie, 'PATCH', `/orgs/${org.id}/members/${admin.id}`, { role: 'owner' })).statusCode).toBe(403);
    expect((await call(admin.cookie, 'POST', `/orgs/${org.id}/invitations`, { email: 'boss@example.com', role: 'owner' })).statusCode).toBe(403);
    expect((await call(admin.cookie, 'DELETE', `/orgs/${org.id}`)).statusCode).toBe(403);
    const ownerInvitation = await invite(t.app, t.outbox, lead, org.id, 'co-owner@example.com', 'owner');
    expect((await call(admin.cookie, 'DELETE', `/orgs/${org.id}/invitations/${ownerInvitation.invitation.id}`)).statusCode).toBe(403);
    expect((await call(lead.cookie, 'DELETE', `/orgs/${org.id}/invitations/${ownerInvitation.invitation.id}`)).statusCode).toBe(204);
  });

  it("another organization's ids: B's ids under A and A's members and invitations under B are 404", async () => {
    const otherLead = await createAccount(t.app, t.outbox);
    const orgB = await createOrg(t.app, otherLead, 'Other Co');
    const memberB = await joinedAccount(t.app, t.outbox, otherLead, orgB.id);
    const invitationB = (await invite(t.app, t.outbox, otherLead, orgB.id, 'b-pending@example.com')).invitation.id;
    // Lead of A (owner) with B's org id: not a member of B.
    for (const [method, url, payload] of everyPath(orgB.id, memberB.id, invitationB)) {
      expect((await call(lead.cookie, method, url, payload)).statusCode, `${method} ${url}`).toBe(404);
    }
    // A's own org id with B's member and invitation ids.
    expect((await call(lead.cookie, 'PATCH', `/orgs/${org.id}/members/${memberB.id}`, { role: 'admin' })).statusCode).toBe(404);
    expect((await call(lead.cookie, 'DELETE', `/orgs/${org.id}/members/${memberB.id}`)).statusCode).toBe(404);
    expect((await call(lead.cookie, 'DELETE', `/orgs/${org.id}/invitations/${invitationB}`)).statusCode).toBe(404);
    // B's lead with A's member and invitation ids under B.
    expect((await call(otherLead.cookie, 'PATCH', `/orgs/${orgB.id}/members/${member.id}`, { role: 'admin' })).statusCode).toBe(404);
    expect((await call(otherLead.cookie, 'DELETE', `/orgs/${orgB.id}/members/${member.id}`)).statusCode).toBe(404);
    expect((await call(otherLead.cookie, 'DELETE', `/orgs/${orgB.id}/invitations/${pendingId}`)).statusCode).toBe(404);
    expect((await call(lead.cookie, 'GET', `/orgs/${org.id}/invitations`)).json()).toEqual([expect.objectContaining({ id: pendingId })]);
    expect((await call(otherLead.cookie, 'GET', `/orgs/${orgB.id}/members`)).json()).toHaveLength(2);
  });

  it('a removal holds from the removed member\'s next request; a demotion too', async () => {
    const removed = await joinedAccount(t.app, t.outbox, lead, org.id, 'admin');
    expect((await call(removed.cookie, 'GET', `/orgs/${org.id}/audit`)).statusCode).toBe(200);
    expect((await call(lead.cookie, 'PATCH', `/orgs/${org.id}/members/${removed.id}`, { role: 'member' })).statusCode).toBe(200);
    expect((await call(removed.cookie, 'GET', `/orgs/${org.id}/audit`)).statusCode).toBe(403);
    expect((await call(lead.cookie, 'DELETE', `/orgs/${org.id}/members/${removed.id}`)).statusCode).toBe(204);
    for (const [method, url, payload] of everyPath(org.id, member.id, pendingId)) {
      expect((await call(removed.cookie, method, url, payload)).statusCode, `${method} ${url}`).toBe(404);
    }
    expect((await call(removed.cookie, 'GET', '/orgs')).json()).toEqual([]);
  });

  it('an invitation is accepted only by a verified account with its email (403), once (404), and not after revocation (404)', async () => {
    const invitee = await createAccount(t.app, t.outbox);
    const wrong = await createAccount(t.app, t.outbox);
    const { invitation, token } = await invite(t.app, t.outbox, lead, org.id, invitee.email);
    expect((await call(wrong.cookie, 'POST', '/invitations/accept', { token })).statusCode).toBe(403);

    // An account that changed its email to the invited address has not proven it.
    const squatter = await createAccount(t.app, t.outbox);
    const target = 'unclaimed@example.com';
    const other = await invite(t.app, t.outbox, lead, org.id, target);
    expect((await call(squatter.cookie, 'PATCH', '/users', { email: target })).statusCode).toBe(200);
    const unverified = await call(squatter.cookie, 'POST', '/invitations/accept', { token: other.token });
    expect(unverified.statusCode).toBe(403);
    expect(unverified.json<{ message: string }>().message).toMatch(/not verified/);

    expect((await call(invitee.cookie, 'POST', '/invitations/accept', { token })).statusCode).toBe(200);
    // Replayed, by the same account or another: the token is spent.
    expect((await call(invitee.cookie, 'POST', '/invitations/accept', { token })).statusCode).toBe(404);
    expect((await call(undefined, 'GET', `/invitations/${token}`)).statusCode).toBe(404);
    expect((await call(lead.cookie, 'DELETE', `/orgs/${org.id}/invitations/${invitation.id}`)).statusCode).toBe(404);

    const revokedFor = await createAccount(t.app, t.outbox);
    const revoked = await invite(t.app, t.outbox, lead, org.id, revokedFor.email);
    expect((await call(lead.cookie, 'DELETE', `/orgs/${org.id}/invitations/${revoked.invitation.id}`)).statusCode).toBe(204);
    expect((await call(revokedFor.cookie, 'POST', '/invitations/accept', { token: revoked.token })).statusCode).toBe(404);
    expect((await call(revokedFor.cookie, 'GET', '/orgs')).json()).toEqual([]);
  });

  it('invitation tokens never reach the logs, in the path or the body', async () => {
    const invitee = await createAccount(t.app, t.outbox);
    const { token } = await invite(t.app, t.outbox, lead, org.id, invitee.email);
    await call(undefined, 'GET', `/invitations/${token}`);
    await t.app.inject({ method: 'GET', url: `/invitations/${token}`, headers: { accept: 'text/html' } });
    await call(invitee.cookie, 'POST', '/invitations/accept', { token });
    const logs = t.logs.join('');
    expect(logs).toContain('/invitations/[redacted]');
    expect(logs).toContain('/invitations/accept');
    expect(logs).not.toContain(token);
  });
});
