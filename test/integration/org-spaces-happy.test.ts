import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usageDaily, usageRecords } from '../../src/db/schema/index.js';
import type { Account } from '../helpers/accounts.js';
import { joinedAccount, type Org } from '../helpers/orgs.js';
import { orgSpacesWorld, type OrgSpacesWorld } from '../helpers/org-spaces.js';
import type { TestApp } from '../helpers/test-app.js';
import type { FakeAiProvider } from '../fakes/fake-ai-providers.js';

const today = new Date().toISOString().slice(0, 10);

/** decisions.md §15: `/orgs/:orgId/workspace`, `/byok` and `/usage` are the personal routers' twins, with the same shapes. */
describe('organization settings, keys and usage: happy paths', () => {
  let t: TestApp;
  let openai: FakeAiProvider;
  let lead: Account;
  let member: Account;
  let org: Org;
  let world: OrgSpacesWorld;
  beforeAll(async () => {
    world = await orgSpacesWorld('Shared Co');
    ({ t, openai, lead, org } = world);
    member = await joinedAccount(t.app, t.outbox, lead, org.id, 'member', 'Member');
  });
  afterAll(() => world?.close());
  const call: OrgSpacesWorld['call'] = (...args) => world.call(...args);
  const audit = async () => (await call(lead, 'GET', `/orgs/${org.id}/audit`)).json<{ items: Array<{ action: string; target: string; details: object; actor: { name: string } }> }>().items;

  it('review settings: an admin writes them, every member reads them, in the shape of /workspace, apart from anyone’s own', async () => {
    const created = await call(lead, 'POST', `/orgs/${org.id}/workspace/aiSettings`, { systemPrompt: 'Team rules', deepModeModel: 'team-deep' });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toEqual({ message: 'Resource created successfully' });
    expect((await call(lead, 'POST', `/orgs/${org.id}/workspace/aiSettings`, { systemPrompt: 'Again' })).statusCode).toBe(409);
    expect((await call(lead, 'PATCH', `/orgs/${org.id}/workspace/aiSettings`, { quickModePrompt: 'Be brief', systemPrompt: null })).statusCode).toBe(204);

    const read = await call(member, 'GET', `/orgs/${org.id}/workspace/aiSettings`);
    expect(read.statusCode).toBe(200);
    const [settings] = read.json();
    expect(settings).toEqual({
      id: expect.any(String),
      quickModeModel: null,
      focusedModeModel: null,
      deepModeModel: 'team-deep',
      systemPrompt: null,
      quickModePrompt: 'Be brief',
      foucsedModePrompt: null,
      deepModePrompt: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    // The personal settings of both stay their own.
    expect((await call(lead, 'GET', '/workspace/aiSettings')).json()).toEqual([]);
    expect((await call(member, 'GET', '/workspace/aiSettings')).json()).toEqual([]);
    expect((await call(lead, 'PATCH', '/workspace/aiSettings', { systemPrompt: 'Mine' })).statusCode).toBe(204);
    expect((await call(member, 'GET', `/orgs/${org.id}/workspace/aiSettings`)).json<Array<{ systemPrompt: string | null }>>()[0]!.systemPrompt).toBeNull();

    const entries = (await audit()).filter((entry) => entry.action === 'settings.changed');
    expect(entries.map((entry) => entry.details)).toEqual([{ fields: ['quickModePrompt', 'systemPrompt'] }, { fields: ['deepModeModel', 'systemPrompt'] }]);
    expect(entries[0]).toMatchObject({ target: 'Review settings', actor: { name: 'Lead' } });
  });

  it('keys: an admin adds, changes and removes one; members list it (never the key); the audit log names the provider, never the key', async () => {
    const added = await call(lead, 'POST', `/orgs/${org.id}/byok`, { modelProviderName: 'openai', apiKey: openai.apiKey });
    expect(added.statusCode, added.body).toBe(201);
    const { id } = added.json<{ id: string }>();

    const listed = await call(member, 'GET', `/orgs/${org.id}/byok`);
    expect(listed.statusCode).toBe(200);
    expect(listed.json()).toEqual([expect.objectContaining({ id, modelProviderName: 'openai', enabled: true })]);
    expect((await call(member, 'GET', `/orgs/${org.id}/byok/providers`)).json()).toEqual([expect.objectContaining({ id, modelProviderName: 'openai' })]);
    const models = (await call(member, 'GET', `/orgs/${org.id}/byok/model-list`)).json<Array<{ id: string }>>();
    expect(models[0]).toMatchObject({ id, modelProviderName: 'openai' });
    expect((await call(lead, 'GET', '/byok')).json()).toEqual([]);

    const patched = await call(lead, 'PATCH', `/orgs/${org.id}/byok/providers/${id}`, { enabled: false });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json()).toMatchObject({ message: 'Provider updated', provider: { id, enabled: false } });
    expect((await call(lead, 'DELETE', `/orgs/${org.id}/byok/providers/openai`)).statusCode).toBe(204);
    expect((await call(member, 'GET', `/orgs/${org.id}/byok`)).json()).toEqual([]);

    const entries = (await audit()).filter((entry) => entry.action.startsWith('key.') || entry.target === 'openai key');
    expect(entries.map((entry) => [entry.action, entry.target])).toEqual([
      ['key.removed', 'openai key'],
      ['settings.changed', 'openai key'],
      ['key.added', 'openai key'],
    ]);
    const log = (await call(lead, 'GET', `/orgs/${org.id}/audit`)).body;
    expect(log).not.toContain(openai.apiKey);
    expect(t.logs.join('')).not.toContain(openai.apiKey);
  });

  it('usage: the allowance, the history by member, reviews and the CSV with memberEmail, for every member', async () => {
    const row = { orgId: org.id, kind: 'review' as const, modelId: 'platform-a', source: 'platform', repositoryName: 'acme/api', inputTokens: 100, outputTokens: 20, durationMs: 30 };
    await t.app.db.insert(usageRecords).values([
      { ...row, memberId: lead.id, costUsd: 0.25 },
      { ...row, memberId: member.id, costUsd: 0.5 },
      { ...row, memberId: null, costUsd: 0.125 },
    ]);
    const daily = { orgId: org.id, day: today, kind: 'review' as const, modelId: 'platform-a', source: 'platform', repositoryName: 'acme/api', generations: 1, inputTokens: 100, outputTokens: 20 };
    await t.app.db.insert(usageDaily).values([
      { ...daily, memberId: lead.id, costUsd: 0.25 },
      { ...daily, memberId: member.id, costUsd: 0.5 },
      { ...daily, memberId: null, costUsd: 0.125 },
    ]);

    const summary = await call(member, 'GET', `/orgs/${org.id}/usage`);
    expect(summary.statusCode).toBe(200);
    expect(summary.json()).toEqual({ utilizedCost: 0, allowedExpenditureLimit: expect.any(Number) });

    const byMember = await call(member, 'GET', `/orgs/${org.id}/usage/history?groupBy=member&from=${today}&to=${today}`);
    expect(byMember.statusCode, byMember.body).toBe(200);
    const history = byMember.json<{ groupBy: string; buckets: Array<{ key: string; costUsd: number; generations: number }>; total: { costUsd: number } }>();
    expect(history.groupBy).toBe('member');
    expect(Object.fromEntries(history.buckets.map((bucket) => [bucket.key, bucket.costUsd]))).toEqual({ [lead.id]: 0.25, [member.id]: 0.5, '(none)': 0.125 });
    expect(history.total.costUsd).toBe(0.875);
    const byDay = (await call(member, 'GET', `/orgs/${org.id}/usage/history?from=${today}&to=${today}`)).json<{ buckets: unknown[] }>();
    expect(byDay.buckets).toEqual([{ key: today, generations: 3, inputTokens: 300, outputTokens: 60, costUsd: 0.875 }]);
    // Nobody's personal history holds the organization's calls.
    expect((await call(lead, 'GET', `/usage/history?from=${today}&to=${today}`)).json<{ total: { generations: number } }>().total.generations).toBe(0);

    const reviews = await call(member, 'GET', `/orgs/${org.id}/usage/reviews`);
    expect(reviews.json()).toEqual({ count: 0, byMode: { quick: 0, focused: 0, deep: 0 }, byStatus: { completed: 0, failed: 0 }, durationMs: { p50: 0, p90: 0, max: 0 } });

    const csv = await call(member, 'GET', `/orgs/${org.id}/usage/export.csv?from=${today}&to=${today}`);
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    const lines = csv.body.split('\r\n').filter((line) => line !== '');
    expect(lines[0]).toBe('at,kind,modelId,source,inputTokens,outputTokens,costUsd,repositoryName,pullRequestId,durationMs,memberEmail');
    expect(lines.slice(1).map((line) => line.split(',').at(-1))).toEqual([lead.email, member.email, '']);
    // The personal CSV keeps its header.
    expect((await call(lead, 'GET', '/usage/export.csv').then((response) => response.body)).split('\r\n')[0]).toBe(
      'at,kind,modelId,source,inputTokens,outputTokens,costUsd,repositoryName,pullRequestId,durationMs',
    );
  });
});
