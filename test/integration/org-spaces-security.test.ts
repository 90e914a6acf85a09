import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/database.js';
import { createAccount, type Account } from '../helpers/accounts.js';
import { callAs, createOrg, joinedAccount, type Method, type Org } from '../helpers/orgs.js';
import { orgSpacesWorld, type OrgSpacesWorld } from '../helpers/org-spaces.js';
import type { TestApp } from '../helpers/test-app.js';
import type { FakeAiProvider } from '../fakes/fake-ai-providers.js';


/** decisions.md §15: nobody outside an organization reads or changes its settings, keys or usage; roles hold from the next request. */
describe('organization settings, keys and usage: security', () => {
  let t: TestApp;
  let openai: FakeAiProvider;
  let lead: Account;
  let org: Org;
  let providerId: string;
  let world: OrgSpacesWorld;
  beforeAll(async () => {
    world = await orgSpacesWorld('Secure Keys Co');
    ({ t, openai, lead, org } = world);
    expect((await callAs(t.app, lead.cookie, 'POST', `/orgs/${org.id}/workspace/aiSettings`, { systemPrompt: 'Secret sauce' })).statusCode).toBe(201);
    const added = await callAs(t.app, lead.cookie, 'POST', `/orgs/${org.id}/byok`, { modelProviderName: 'openai', apiKey: openai.apiKey });
    expect(added.statusCode).toBe(201);
    providerId = added.json<{ id: string }>().id;
  });
  afterAll(() => world?.close());
  const call: OrgSpacesWorld['call'] = (...args) => world.call(...args);

  const everyPath = (orgId: string): Array<[Method, string, object?]> => [
    ['GET', `/orgs/${orgId}/workspace/aiSettings`],
    ['POST', `/orgs/${orgId}/workspace/aiSettings`, { systemPrompt: 'Taken over' }],
    ['PATCH', `/orgs/${orgId}/workspace/aiSettings`, { systemPrompt: 'Taken over' }],
    ['GET', `/orgs/${orgId}/byok`],
    ['POST', `/orgs/${orgId}/byok`, { modelProviderName: 'openai', apiKey: openai.apiKey }],
    ['GET', `/orgs/${orgId}/byok/model-list`],
    ['POST', `/orgs/${orgId}/byok/model-list`, { modelProviderName: 'openai', apiKey: openai.apiKey }],
    ['GET', `/orgs/${orgId}/byok/providers`],
    ['PATCH', `/orgs/${orgId}/byok/providers/${providerId}`, { enabled: false }],
    ['PATCH', `/orgs/${orgId}/byok/providers`, { modelProviderName: 'openai', enabled: false }],
    ['DELETE', `/orgs/${orgId}/byok/providers/${providerId}`],
    ['GET', `/orgs/${orgId}/usage`],
    ['GET', `/orgs/${orgId}/usage/history?groupBy=member`],
    ['GET', `/orgs/${orgId}/usage/reviews`],
    ['GET', `/orgs/${orgId}/usage/export.csv`],
  ];

  it('a non-member gets 404 on every path, malformed ids included, and nothing changes', async () => {
    const outsider = await createAccount(t.app, t.outbox);
    for (const orgId of [org.id, org.id.toUpperCase(), 'not-a-uuid', '00000000-0000-4000-8000-000000000000']) {
      for (const [method, url, payload] of everyPath(orgId)) {
        const response = await call(outsider, method, url, payload);
        expect(response.statusCode, `${method} ${url}`).toBe(404);
        expect(response.body).not.toContain('Secret sauce');
      }
    }
    expect((await call(lead, 'GET', `/orgs/${org.id}/workspace/aiSettings`)).json<Array<{ systemPrompt: string }>>()[0]!.systemPrompt).toBe('Secret sauce');
    expect((await call(lead, 'GET', `/orgs/${org.id}/byok`)).json()).toEqual([expect.objectContaining({ id: providerId, enabled: true })]);
  });

  it("another organization's or a personal provider id is not found through an organization's path", async () => {
    const other = await createAccount(t.app, t.outbox, { name: 'Other lead' });
    const otherOrg = await createOrg(t.app, other, 'Other Co');
    for (const [method, payload] of [['PATCH', { enabled: false }], ['DELETE', undefined]] as const) {
      expect((await call(other, method, `/orgs/${otherOrg.id}/byok/providers/${providerId}`, payload)).statusCode).toBe(404);
    }
    const personal = await call(other, 'POST', '/byok', { modelProviderName: 'openai', apiKey: openai.apiKey });
    const personalId = personal.json<{ id: string }>().id;
    expect((await call(other, 'DELETE', `/orgs/${otherOrg.id}/byok/providers/${personalId}`)).statusCode).toBe(404);
    // Nor the organization's through the personal path.
    expect((await call(lead, 'DELETE', `/byok/providers/${providerId}`)).statusCode).toBe(404);
    expect((await call(lead, 'GET', `/orgs/${org.id}/byok`)).json()).toHaveLength(1);
    expect((await call(other, 'GET', '/byok')).json()).toEqual([expect.objectContaining({ id: personalId })]);
  });

  it('a demoted admin gets 403 and a removed member 404 on the very next request', async () => {
    const admin = await joinedAccount(t.app, t.outbox, lead, org.id, 'admin', 'Admin');
    expect((await call(admin, 'PATCH', `/orgs/${org.id}/workspace/aiSettings`, { quickModePrompt: 'ok' })).statusCode).toBe(204);
    expect((await call(lead, 'PATCH', `/orgs/${org.id}/members/${admin.id}`, { role: 'member' })).statusCode).toBe(200);
    expect((await call(admin, 'PATCH', `/orgs/${org.id}/workspace/aiSettings`, { quickModePrompt: 'no' })).statusCode).toBe(403);
    expect((await call(admin, 'GET', `/orgs/${org.id}/workspace/aiSettings`)).statusCode).toBe(200);
    expect((await call(lead, 'DELETE', `/orgs/${org.id}/members/${admin.id}`)).statusCode).toBe(204);
    for (const [method, url, payload] of everyPath(org.id)) {
      expect((await call(admin, method, url, payload)).statusCode, `${method} ${url}`).toBe(404);
    }
  });

  it('deleting the organization deletes its settings, keys and usage', async () => {
    const owner = await createAccount(t.app, t.outbox, { name: 'Short-lived' });
    const doomed = await createOrg(t.app, owner, 'Doomed Co');
    expect((await call(owner, 'POST', `/orgs/${doomed.id}/workspace/aiSettings`, { systemPrompt: 'gone' })).statusCode).toBe(201);
    expect((await call(owner, 'POST', `/orgs/${doomed.id}/byok`, { modelProviderName: 'openai', apiKey: openai.apiKey })).statusCode).toBe(201);
    expect((await call(owner, 'GET', `/orgs/${doomed.id}/usage`)).statusCode).toBe(200);
    expect((await call(owner, 'DELETE', `/orgs/${doomed.id}`)).statusCode).toBe(204);
    const left = await queryRows<{ count: string }>(
      t.app.db,
      sql`select (select count(*) from workspace_settings where org_id = ${doomed.id}) + (select count(*) from byok_providers where org_id = ${doomed.id}) + (select count(*) from usage where org_id = ${doomed.id}) as count`,
    );
    expect(Number(left[0]!.count)).toBe(0);
  });
});
