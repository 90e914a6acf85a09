import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../helpers/accounts.js';
import { callAs, createOrg, invite, joinedAccount } from '../helpers/orgs.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

/** decisions.md §4, §7 and §15: what organizations refuse, and with which status. */
describe('organizations: the errors', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ role: 'api' });
  });
  afterAll(() => t.close());
  const call = (cookie: string | undefined, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) => callAs(t.app, cookie, method, url, payload);

  it('needs a session everywhere but the invitation preview (401)', async () => {
    const id = '00000000-0000-4000-8000-000000000000';
    for (const [method, url] of [
      ['POST', '/orgs'],
      ['GET', '/orgs'],
      ['GET', `/orgs/${id}`],
      ['PATCH', `/orgs/${id}`],
      ['DELETE', `/orgs/${id}`],
      ['GET', `/orgs/${id}/members`],
      ['POST', `/orgs/${id}/invitations`],
      ['GET', `/orgs/${id}/audit`],
      ['POST', '/invitations/accept'],
    ] as const) {
      const response = await call(undefined, method, url, method === 'GET' || method === 'DELETE' ? undefined : { name: 'x' });
      expect(response.statusCode, `${method} ${url}`).toBe(401);
    }
  });

  it('refuses bad input with 400 naming the field', async () => {
    const lead = await createAccount(t.app, t.outbox);
    const org = await createOrg(t.app, lead, 'Errors Co');
    const cases: Array<[string, string, object, string]> = [
      ['POST', '/orgs', { name: '' }, 'name'],
      ['POST', '/orgs', { name: 'x'.repeat(57) }, 'name'],
      ['POST', '/orgs', { name: 'nul\u0000' }, 'name'],
      ['POST', '/orgs', {}, 'name'],
      ['PATCH', `/orgs/${org.id}`, { monthlySpendLimitUsd: -1 }, 'monthlySpendLimitUsd'],
      ['PATCH', `/orgs/${org.id}`, { monthlySpendLimitUsd: '5' }, 'monthlySpendLimitUsd'],
      ['PATCH', `/orgs/${org.id}/members/${lead.id}`, { role: 'king' }, 'role'],
      ['POST', `/orgs/${org.id}/invitations`, { email: 'not an email', role: 'member' }, 'email'],
      ['POST', `/orgs/${org.id}/invitations`, { email: 'a@example.com', role: 'boss' }, 'role'],
    ];
    for (const [method, url, payload, field] of cases) {
      const response = await call(lead.cookie, method as 'POST', url, payload);
      expect(response.statusCode, `${method} ${url} ${JSON.stringify(payload)}`).toBe(400);
      expect(response.json()).toMatchObject({ statusCode: 400, error: 'Bad Request' });
      expect(JSON.stringify(response.json<{ details?: unknown }>().details ?? response.json<{ message: string }>().message)).toContain(field);
    }
    // A PATCH that changes nothing (§7).
    for (const payload of [{}, { unknown: 1 }]) expect((await call(lead.cookie, 'PATCH', `/orgs/${org.id}`, payload)).statusCode).toBe(400);
    expect((await call(lead.cookie, 'GET', `/orgs/${org.id}/audit?cursor=abc`)).statusCode).toBe(400);
  });

  it('keeps the last owner: no leaving, no demoting oneself (409)', async () => {
    const lead = await createAccount(t.app, t.outbox);
    const org = await createOrg(t.app, lead, 'Last Owner Co');
    await joinedAccount(t.app, t.outbox, lead, org.id, 'admin');
    const demote = await call(lead.cookie, 'PATCH', `/orgs/${org.id}/members/${lead.id}`, { role: 'admin' });
    expect(demote.statusCode).toBe(409);
    expect(demote.json<{ message: string }>().message).toMatch(/owner/);
    expect((await call(lead.cookie, 'DELETE', `/orgs/${org.id}/members/${lead.id}`)).statusCode).toBe(409);
    expect((await call(lead.cookie, 'GET', `/orgs/${org.id}`)).json()).toMatchObject({ role: 'owner' });
  });

  it('refuses to invite someone already a member (409)', async () => {
    const lead = await createAccount(t.app, t.outbox);
    const org = await createOrg(t.app, lead, 'Conflict Co');
    const member = await joinedAccount(t.app, t.outbox, lead, org.id);
    expect((await call(lead.cookie, 'POST', `/orgs/${org.id}/invitations`, { email: member.email, role: 'admin' })).statusCode).toBe(409);
    expect((await call(lead.cookie, 'POST', `/orgs/${org.id}/invitations`, { email: lead.email.toUpperCase(), role: 'admin' })).statusCode).toBe(409);
  });

  it('an expired invitation is 410 to preview and to accept, and cannot be revoked as pending (404)', async () => {
    const lead = await createAccount(t.app, t.outbox);
    const org = await createOrg(t.app, lead, 'Expired Co');
    const invitee = await createAccount(t.app, t.outbox);
    const { invitation, token } = await invite(t.app, t.outbox, lead, org.id, invitee.email);
    await t.app.db.execute(sql`update organization_invitations set expires_at = now() - interval '1 second' where id = ${invitation.id}`);
    expect((await call(undefined, 'GET', `/invitations/${token}`)).statusCode).toBe(410);
    const accepted = await call(invitee.cookie, 'POST', '/invitations/accept', { token });
    expect(accepted.statusCode).toBe(410);
    expect(accepted.json()).toMatchObject({ statusCode: 410, error: 'Gone' });
    expect((await call(lead.cookie, 'GET', `/orgs/${org.id}/invitations`)).json()).toEqual([]);
    expect((await call(lead.cookie, 'DELETE', `/orgs/${org.id}/invitations/${invitation.id}`)).statusCode).toBe(404);
    expect((await call(invitee.cookie, 'GET', '/orgs')).json()).toEqual([]);
  });

  it('an unknown token is 404, whatever its shape', async () => {
    const account = await createAccount(t.app, t.outbox);
    for (const token of ['0'.repeat(64), 'nope', 'a'.repeat(99)]) {
      expect((await call(undefined, 'GET', `/invitations/${token}`)).statusCode).toBe(404);
      expect((await call(account.cookie, 'POST', '/invitations/accept', { token })).statusCode).toBe(404);
    }
    expect((await call(account.cookie, 'POST', '/invitations/accept', {})).statusCode).toBe(400);
  });

  it('deleting the account of the only owner of an organization with others is 409 naming it; nothing is deleted', async () => {
    const lead = await createAccount(t.app, t.outbox);
    const org = await createOrg(t.app, lead, 'Blocking Co');
    const member = await joinedAccount(t.app, t.outbox, lead, org.id);
    const refused = await call(lead.cookie, 'DELETE', '/users');
    expect(refused.statusCode).toBe(409);
    expect(refused.json<{ message: string }>().message).toContain('"Blocking Co"');
    expect((await call(lead.cookie, 'GET', '/users')).statusCode).toBe(200);
    // With a second owner, it goes through.
    expect((await call(lead.cookie, 'PATCH', `/orgs/${org.id}/members/${member.id}`, { role: 'owner' })).statusCode).toBe(200);
    expect((await call(lead.cookie, 'DELETE', '/users')).statusCode).toBe(204);
    expect((await call(member.cookie, 'GET', `/orgs/${org.id}/members`)).json()).toEqual([expect.objectContaining({ userId: member.id, role: 'owner' })]);
  });
});
