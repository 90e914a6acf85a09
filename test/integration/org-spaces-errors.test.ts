import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Account } from '../helpers/accounts.js';
import { callAs, joinedAccount, type Method, type Org } from '../helpers/orgs.js';
import { orgSpacesWorld, type OrgSpacesWorld } from '../helpers/org-spaces.js';
import type { TestApp } from '../helpers/test-app.js';
import type { FakeAiProvider } from '../fakes/fake-ai-providers.js';


/** decisions.md §15: members read the organization's settings, keys and usage; writes need admin+. */
describe('organization settings, keys and usage: errors', () => {
  let t: TestApp;
  let openai: FakeAiProvider;
  let lead: Account;
  let member: Account;
  let org: Org;
  let world: OrgSpacesWorld;
  beforeAll(async () => {
    world = await orgSpacesWorld('Errors Co');
    ({ t, openai, lead, org } = world);
    member = await joinedAccount(t.app, t.outbox, lead, org.id, 'member', 'Member');
  });
  afterAll(() => world?.close());
  const call: OrgSpacesWorld['call'] = (...args) => world.call(...args);

  it('a member gets 403 for every write, whatever the body, and nothing changes', async () => {
    const writes: Array<[Method, string, object?]> = [
      ['POST', `/orgs/${org.id}/workspace/aiSettings`, { systemPrompt: 'Mine now' }],
      ['PATCH', `/orgs/${org.id}/workspace/aiSettings`, { systemPrompt: 'Mine now' }],
      ['PATCH', `/orgs/${org.id}/workspace/aiSettings`, { nonsense: true }],
      ['POST', `/orgs/${org.id}/byok`, { modelProviderName: 'openai', apiKey: openai.apiKey }],
      ['POST', `/orgs/${org.id}/byok/model-list`, { modelProviderName: 'openai', apiKey: openai.apiKey }],
      ['PATCH', `/orgs/${org.id}/byok/providers/openai`, { enabled: false }],
      ['PATCH', `/orgs/${org.id}/byok/providers`, { modelProviderName: 'openai', enabled: false }],
      ['DELETE', `/orgs/${org.id}/byok/providers/openai`],
    ];
    for (const [method, url, payload] of writes) {
      const response = await call(member, method, url, payload);
      expect(response.statusCode, `${method} ${url}`).toBe(403);
    }
    expect((await call(member, 'GET', `/orgs/${org.id}/workspace/aiSettings`)).json()).toEqual([]);
    expect((await call(member, 'GET', `/orgs/${org.id}/byok`)).json()).toEqual([]);
    expect(openai.requests).toHaveLength(0);
  });

  it('validation as on the personal routes: another tab 404, a bad body 400, a rejected key 400 and never stored', async () => {
    expect((await call(lead, 'GET', `/orgs/${org.id}/workspace/other`)).statusCode).toBe(404);
    expect((await call(lead, 'PATCH', `/orgs/${org.id}/workspace/aiSettings`, {})).statusCode).toBe(400);
    expect((await call(lead, 'PATCH', `/orgs/${org.id}/workspace/aiSettings`, { systemPrompt: 5 })).statusCode).toBe(400);
    const rejected = await call(lead, 'POST', `/orgs/${org.id}/byok`, { modelProviderName: 'openai', apiKey: 'sk-wrong-key-0000000000' });
    expect(rejected.statusCode).toBe(400);
    expect((await call(lead, 'GET', `/orgs/${org.id}/byok`)).json()).toEqual([]);
    expect((await call(lead, 'DELETE', `/orgs/${org.id}/byok/providers/openai`)).statusCode).toBe(404);
  });

  it('usage: groupBy=member is for organizations only; ranges are checked as on /usage', async () => {
    expect((await call(lead, 'GET', '/usage/history?groupBy=member')).statusCode).toBe(400);
    expect((await call(member, 'GET', `/orgs/${org.id}/usage/history?groupBy=month`)).statusCode).toBe(400);
    expect((await call(member, 'GET', `/orgs/${org.id}/usage/history?from=2026-03-02&to=2026-03-01`)).statusCode).toBe(400);
    expect((await call(member, 'GET', `/orgs/${org.id}/usage/export.csv?from=2025-01-01&to=2026-12-31`)).statusCode).toBe(400);
    // The personal `/usage/:userId` has no twin.
    expect((await call(lead, 'GET', `/orgs/${org.id}/usage/${lead.id}`)).statusCode).toBe(404);
  });

  it('signed out: 401 before anything else', async () => {
    for (const url of [`/orgs/${org.id}/workspace/aiSettings`, `/orgs/${org.id}/byok`, `/orgs/${org.id}/usage/history`]) {
      expect((await callAs(t.app, undefined, 'GET', url)).statusCode, url).toBe(401);
    }
  });
});
