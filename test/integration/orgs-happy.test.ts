import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../helpers/accounts.js';
import { callAs, createOrg, invite, joinedAccount, type Org } from '../helpers/orgs.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

interface AuditPage {
  items: Array<{ at: string; actor: { userId: string | null; name: string }; action: string; target: string; details: Record<string, unknown> }>;
  nextCursor: string | null;
}

/** decisions.md §15: organizations, members, invitations and the audit log, as a team lead uses them. */
describe('organizations: the happy paths', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ role: 'api' });
  });
  afterAll(() => t.close());
  const call = (cookie: string | undefined, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) => callAs(t.app, cookie, method, url, payload);

  it('creates an organization whose creator is the owner, with a slug from its name', async () => {
    const lead = await createAccount(t.app, t.outbox, { name: 'Lead' });
    const org = await createOrg(t.app, lead, 'Ünïcode & Co.  Platform!');
    expect(org).toEqual({ id: expect.any(String), name: 'Ünïcode & Co.  Platform!', slug: 'unicode-co-platform', role: 'owner', monthlySpendLimitUsd: null, createdAt: expect.stringMatching(/\.\d{3}Z$/) });
    // Same name again: the next free number.
    expect((await createOrg(t.app, lead, 'unicode co platform')).slug).toBe('unicode-co-platform-2');
    expect((await createOrg(t.app, lead, '日本')).slug).toMatch(/^org(-\d+)?$/);

    expect((await call(lead.cookie, 'GET', `/orgs/${org.id}`)).json()).toEqual(org);
    const list = (await call(lead.cookie, 'GET', '/orgs')).json<Org[]>();
    expect(list.map((item) => item.id)).toContain(org.id);
    expect(list.every((item) => item.role === 'owner')).toBe(true);
    // Someone else's list does not hold it.
    const other = await createAccount(t.app, t.outbox);
    expect((await call(other.cookie, 'GET', '/orgs')).json()).toEqual([]);
  });

  it('renames and sets the spend limit (admin+), the slug staying as it was', async () => {
    const lead = await createAccount(t.app, t.outbox);
    const org = await createOrg(t.app, lead, 'Rename Me');
    const admin = await joinedAccount(t.app, t.outbox, lead, org.id, 'admin', 'Ada Admin');
    const renamed = await call(admin.cookie, 'PATCH', `/orgs/${org.id}`, { name: 'Renamed', monthlySpendLimitUsd: 25.5 });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(renamed.json()).toEqual({ ...org, name: 'Renamed', role: 'admin', monthlySpendLimitUsd: 25.5 });
    const cleared = await call(lead.cookie, 'PATCH', `/orgs/${org.id}`, { monthlySpendLimitUsd: null });
    expect(cleared.json()).toMatchObject({ name: 'Renamed', slug: 'rename-me', monthlySpendLimitUsd: null, role: 'owner' });
    const small = await call(lead.cookie, 'PATCH', `/orgs/${org.id}`, { monthlySpendLimitUsd: 0.005 });
    expect(small.json<Org>().monthlySpendLimitUsd).toBe(0.005);
  });

  it('invites by email; the invitee previews without a session, accepts with a verified matching email and joins with the role', async () => {
    const lead = await createAccount(t.app, t.outbox, { name: 'Lead' });
    const org = await createOrg(t.app, lead, 'Invite Co');
    const invitee = await createAccount(t.app, t.outbox, { name: 'Ivy' });
    const before = Date.now();
    const { invitation, token } = await invite(t.app, t.outbox, lead, org.id, invitee.email.toUpperCase(), 'admin');
    expect(invitation).toEqual({ id: expect.any(String), email: invitee.email, role: 'admin', expiresAt: expect.any(String) });
    const ttl = Date.parse(invitation.expiresAt) - before;
    expect(ttl).toBeGreaterThan(7 * 86_400_000 - 60_000);
    expect(ttl).toBeLessThanOrEqual(7 * 86_400_000 + 60_000);

    const email = await t.outbox.latest(invitee.email);
    expect(email.text).toContain(`${t.config.publicUrl}/invitations/${token}`);
    expect(email.text).toContain('Invite Co');
    expect(email.subject).not.toContain(token);

    expect((await call(lead.cookie, 'GET', `/orgs/${org.id}/invitations`)).json()).toEqual([invitation]);
    const preview = await call(undefined, 'GET', `/invitations/${token}`);
    expect(preview.statusCode).toBe(200);
    expect(preview.json()).toEqual({ orgName: 'Invite Co', role: 'admin', email: invitee.email, expiresAt: invitation.expiresAt });

    const accepted = await call(invitee.cookie, 'POST', '/invitations/accept', { token });
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect(accepted.json()).toEqual({ ...org, role: 'admin' });
    expect((await call(lead.cookie, 'GET', `/orgs/${org.id}/invitations`)).json()).toEqual([]);
    const members = (await call(invitee.cookie, 'GET', `/orgs/${org.id}/members`)).json();
    expect(members).toEqual([
      { userId: lead.id, name: 'Lead', email: lead.email, role: 'owner', joinedAt: expect.any(String) },
      { userId: invitee.id, name: 'Ivy', email: invitee.email, role: 'admin', joinedAt: expect.any(String) },
    ]);
    expect((await call(invitee.cookie, 'GET', '/orgs')).json()).toEqual([{ ...org, role: 'admin' }]);
  });

  it('a new invitation to the same address replaces the pending one; revoking removes it from the list', async () => {
    const lead = await createAccount(t.app, t.outbox);
    const org = await createOrg(t.app, lead, 'Revoke Co');
    const first = await invite(t.app, t.outbox, lead, org.id, 'someone@example.com');
    const second = await invite(t.app, t.outbox, lead, org.id, 'someone@example.com', 'admin');
    expect((await call(undefined, 'GET', `/invitations/${first.token}`)).statusCode).toBe(404);
    expect((await call(lead.cookie, 'GET', `/orgs/${org.id}/invitations`)).json()).toEqual([second.invitation]);
    expect((await call(lead.cookie, 'DELETE', `/orgs/${org.id}/invitations/${second.invitation.id}`)).statusCode).toBe(204);
    expect((await call(lead.cookie, 'GET', `/orgs/${org.id}/invitations`)).json()).toEqual([]);
    expect((await call(undefined, 'GET', `/invitations/${second.token}`)).statusCode).toBe(404);
  });

  it('changes roles, removes members, and lets a member leave', async () => {
    const lead = await createAccount(t.app, t.outbox);
    const org = await createOrg(t.app, lead, 'Roles Co');
    const admin = await joinedAccount(t.app, t.outbox, lead, org.id, 'admin');
    const member = await joinedAccount(t.app, t.outbox, lead, org.id, 'member', 'Mo');
    const leaver = await joinedAccount(t.app, t.outbox, lead, org.id, 'member');

    const promoted = await call(admin.cookie, 'PATCH', `/orgs/${org.id}/members/${member.id}`, { role: 'admin' });
    expect(promoted.statusCode, promoted.body).toBe(200);
    expect(promoted.json()).toEqual({ userId: member.id, name: 'Mo', email: member.email, role: 'admin', joinedAt: expect.any(String) });
    // Owners make owners; a second owner lets the first step down.
    expect((await call(lead.cookie, 'PATCH', `/orgs/${org.id}/members/${admin.id}`, { role: 'owner' })).json()).toMatchObject({ role: 'owner' });
    expect((await call(lead.cookie, 'PATCH', `/orgs/${org.id}/members/${lead.id}`, { role: 'member' })).json()).toMatchObject({ role: 'member' });

    expect((await call(admin.cookie, 'DELETE', `/orgs/${org.id}/members/${member.id}`)).statusCode).toBe(204);
    expect((await call(leaver.cookie, 'DELETE', `/orgs/${org.id}/members/${leaver.id}`)).statusCode).toBe(204);
    const roles = (await call(admin.cookie, 'GET', `/orgs/${org.id}/members`)).json<Array<{ userId: string; role: string }>>();
    expect(roles.map(({ userId, role }) => ({ userId, role }))).toEqual([
      { userId: lead.id, role: 'member' },
      { userId: admin.id, role: 'owner' },
    ]);
  });

  it('records each change in the audit log, newest first, paged by nextCursor, with no token in it', async () => {
    const lead = await createAccount(t.app, t.outbox, { name: 'Lead' });
    const org = await createOrg(t.app, lead, 'Audit Co');
    const member = await joinedAccount(t.app, t.outbox, lead, org.id, 'member', 'Mia');
    const { invitation, token } = await invite(t.app, t.outbox, lead, org.id, 'later@example.com');
    await call(lead.cookie, 'DELETE', `/orgs/${org.id}/invitations/${invitation.id}`);
    await call(lead.cookie, 'PATCH', `/orgs/${org.id}`, { name: 'Audit Inc', monthlySpendLimitUsd: 10 });
    await call(lead.cookie, 'PATCH', `/orgs/${org.id}/members/${member.id}`, { role: 'admin' });
    await call(lead.cookie, 'DELETE', `/orgs/${org.id}/members/${member.id}`);

    const page = (await call(lead.cookie, 'GET', `/orgs/${org.id}/audit`)).json<AuditPage>();
    expect(page.nextCursor).toBeNull();
    expect(page.items.map((item) => item.action)).toEqual([
      'member.removed',
      'member.role_changed',
      'spend_limit.changed',
      'org.updated',
      'invitation.revoked',
      'member.invited',
      'member.joined',
      'member.invited',
      'org.created',
    ]);
    expect(page.items[0]).toEqual({ at: expect.stringMatching(/Z$/), actor: { userId: lead.id, name: 'Lead' }, action: 'member.removed', target: member.email, details: { userId: member.id, role: 'admin', left: false } });
    expect(page.items[1]!.details).toEqual({ userId: member.id, from: 'member', to: 'admin' });
    expect(page.items[2]!.details).toEqual({ from: null, to: 10 });
    expect(page.items[3]!.details).toEqual({ name: { from: 'Audit Co', to: 'Audit Inc' } });
    expect(page.items[4]).toMatchObject({ target: 'later@example.com', details: { invitationId: invitation.id, role: 'member' } });
    expect(page.items[6]).toMatchObject({ actor: { userId: member.id, name: 'Mia' }, action: 'member.joined', target: member.email });
    expect(JSON.stringify(page)).not.toContain(token);
    const dates = page.items.map((item) => Date.parse(item.at));
    expect([...dates].sort((a, b) => b - a)).toEqual(dates);

    // 25 more: two pages of 20, then the rest.
    for (let n = 0; n < 25; n++) await call(lead.cookie, 'PATCH', `/orgs/${org.id}`, { name: `Audit ${n}` });
    const first = (await call(lead.cookie, 'GET', `/orgs/${org.id}/audit`)).json<AuditPage>();
    expect(first.items).toHaveLength(20);
    expect(first.items[0]!.target).toBe('Audit 24');
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = (await call(lead.cookie, 'GET', `/orgs/${org.id}/audit?cursor=${first.nextCursor}`)).json<AuditPage>();
    expect(second.items).toHaveLength(14);
    expect(second.items[0]!.target).toBe('Audit 4');
    expect(second.items.at(-1)!.action).toBe('org.created');
    expect(second.nextCursor).toBeNull();
  });

  it('deletes an organization with its members, invitations and audit log (owner, 204)', async () => {
    const lead = await createAccount(t.app, t.outbox);
    const org = await createOrg(t.app, lead, 'Doomed Co');
    const member = await joinedAccount(t.app, t.outbox, lead, org.id);
    const { token } = await invite(t.app, t.outbox, lead, org.id, 'pending@example.com');
    expect((await call(lead.cookie, 'DELETE', `/orgs/${org.id}`)).statusCode).toBe(204);
    expect((await call(lead.cookie, 'GET', `/orgs/${org.id}`)).statusCode).toBe(404);
    expect((await call(member.cookie, 'GET', '/orgs')).json()).toEqual([]);
    expect((await call(undefined, 'GET', `/invitations/${token}`)).statusCode).toBe(404);
  });

  it('account deletion takes the organizations the user is alone in, and leaves the others', async () => {
    const solo = await createAccount(t.app, t.outbox);
    const alone = await createOrg(t.app, solo, 'Solo Co');
    const lead = await createAccount(t.app, t.outbox);
    const shared = await createOrg(t.app, lead, 'Shared Co');
    const { token } = await invite(t.app, t.outbox, lead, shared.id, solo.email, 'owner');
    expect((await call(solo.cookie, 'POST', '/invitations/accept', { token })).statusCode).toBe(200);

    expect((await call(solo.cookie, 'DELETE', '/users')).statusCode).toBe(204);
    // The organization it was alone in is gone, the shared one keeps its other owner.
    expect((await call(lead.cookie, 'GET', `/orgs/${alone.id}`)).statusCode).toBe(404);
    const members = (await call(lead.cookie, 'GET', `/orgs/${shared.id}/members`)).json<Array<{ userId: string }>>();
    expect(members.map((item) => item.userId)).toEqual([lead.id]);
    const audit = (await call(lead.cookie, 'GET', `/orgs/${shared.id}/audit`)).json<AuditPage>();
    expect(audit.items[0]).toMatchObject({ action: 'member.removed', actor: { userId: null }, details: { userId: solo.id, left: true, accountDeleted: true } });
  });
});
