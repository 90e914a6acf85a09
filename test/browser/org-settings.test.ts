import { mkdir } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeAiProvider } from '../fakes/fake-ai-providers.js';
import { createAccount, type Account } from '../helpers/accounts.js';
import { callAs, createOrg, joinedAccount, type Org } from '../helpers/orgs.js';
import { browserWorld, expectAccessible, expectHeading, signedInPage, SCREENSHOT_DIR, type BrowserWorld } from './browser-world.js';

/** decisions.md §15: an organization's Review and Providers tabs and its usage; members see them without their controls. */
describe("an organization's settings and usage in the browser", () => {
  let world: BrowserWorld;
  let openai: FakeAiProvider;
  let lead: Account;
  let member: Account;
  let org: Org;
  let page: Page;

  beforeAll(async () => {
    openai = await FakeAiProvider.start('openai');
    world = await browserWorld({ env: { BYOK_OPENAI_BASE_URL: openai.url } });
    await mkdir(SCREENSHOT_DIR, { recursive: true });
    lead = await createAccount(world.t.app, world.t.outbox, { name: 'Lena Lead' });
    org = await createOrg(world.t.app, lead, 'Review Guild');
    member = await joinedAccount(world.t.app, world.t.outbox, lead, org.id, 'member', 'Mo Member');
    page = await signedInPage(world, lead.cookie);
  }, 60_000);
  afterAll(async () => {
    await world?.close();
    await openai?.stop();
  });
  afterEach(() => {
    expect(world.errors.splice(0), 'console errors').toEqual([]);
  });

  it('an admin sets the team prompt on the Review tab', async () => {
    await page.goto(`/orgs/${org.id}/settings/members?org=${org.id}`);
    await page.getByRole('navigation', { name: 'Organization settings' }).getByRole('link', { name: 'Review' }).click();
    await page.waitForURL(/\/settings\/review/);
    await page.getByRole('heading', { level: 2, name: 'Review settings' }).waitFor();
    await page.getByLabel('System prompt').fill('Check every SQL query for injection.');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved.').waitFor();
    await expectAccessible(page, '/orgs/:orgId/settings/review');
    await page.screenshot({ path: `${SCREENSHOT_DIR}org-review-settings.png`, fullPage: true });
    const stored = await callAs(world.t.app, member.cookie, 'GET', `/orgs/${org.id}/workspace/aiSettings`);
    expect(stored.json<Array<{ systemPrompt: string }>>()[0]!.systemPrompt).toBe('Check every SQL query for injection.');
    // The lead's own settings are untouched.
    expect((await callAs(world.t.app, lead.cookie, 'GET', '/workspace/aiSettings')).json()).toEqual([]);
  });

  it('an admin adds the team key on the Providers tab', async () => {
    await page.getByRole('navigation', { name: 'Organization settings' }).getByRole('link', { name: 'Providers' }).click();
    await page.waitForURL(/\/settings\/providers/);
    await page.getByRole('heading', { level: 2, name: 'AI providers' }).waitFor();
    await page.getByLabel('Provider').selectOption('openai');
    await page.getByLabel('API key').fill(openai.apiKey);
    await page.getByRole('button', { name: 'Save key' }).click();
    await page.getByRole('listitem', { name: 'OpenAI' }).waitFor();
    await expectAccessible(page, '/orgs/:orgId/settings/providers');
    await page.screenshot({ path: `${SCREENSHOT_DIR}org-providers.png`, fullPage: true });
    expect((await callAs(world.t.app, lead.cookie, 'GET', '/byok')).json()).toEqual([]);
  });

  it('a member sees both tabs without their controls, and no Audit log tab', async () => {
    const memberPage = await signedInPage(world, member.cookie);
    await memberPage.goto(`/orgs/${org.id}/settings/review?org=${org.id}`);
    await memberPage.getByRole('heading', { level: 2, name: 'Review settings' }).waitFor();
    await memberPage.getByText('Check every SQL query for injection.').waitFor();
    await memberPage.getByText('Only owners and admins change these settings.').waitFor();
    expect(await memberPage.getByRole('button', { name: 'Save' }).count()).toBe(0);
    expect(await memberPage.getByRole('textbox').count()).toBe(0);
    const tabs = memberPage.getByRole('navigation', { name: 'Organization settings' }).getByRole('link');
    expect(await tabs.allTextContents()).toEqual(['Members', 'Review', 'Providers', 'Installations', 'Spend limit']);
    await expectAccessible(memberPage, 'review settings, read-only');
    await memberPage.screenshot({ path: `${SCREENSHOT_DIR}org-review-settings-member.png`, fullPage: true });

    await tabs.filter({ hasText: 'Providers' }).click();
    await memberPage.waitForURL(/\/settings\/providers/);
    const key = memberPage.getByRole('listitem', { name: 'OpenAI' });
    await key.waitFor();
    expect(await key.getByRole('switch').count()).toBe(0);
    expect(await key.getByRole('button', { name: 'Delete' }).count()).toBe(0);
    expect(await memberPage.getByRole('button', { name: 'Save key' }).count()).toBe(0);
    expect(await memberPage.getByLabel('API key').count()).toBe(0);
    await expectAccessible(memberPage, 'providers, read-only');
    await memberPage.screenshot({ path: `${SCREENSHOT_DIR}org-providers-member.png`, fullPage: true });
    await memberPage.close();
  });

  it("the usage page shows the organization's usage, spend by member and its CSV, when it is chosen", async () => {
    // `/usage` is also the API's path: the page is reached from the navigation, as people do.
    await page.goto(`/?org=${org.id}`);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Usage' }).click();
    await page.waitForURL((url) => url.pathname === '/usage' && url.searchParams.get('org') === org.id);
    await expectHeading(page, 'Usage');
    await page.getByRole('heading', { name: 'Spend by member' }).waitFor();
    await page.getByText('No use in this range.').waitFor();
    await expectAccessible(page, '/usage?org=');
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download CSV' }).click();
    expect((await download).url()).toContain(`/orgs/${org.id}/usage/export.csv`);
    await page.getByLabel('Organization', { exact: true }).selectOption({ label: 'Personal' });
    await page.waitForURL((url) => url.pathname === '/usage' && !url.searchParams.has('org'));
    await page.getByRole('heading', { name: 'Summary' }).waitFor();
    expect(await page.getByRole('heading', { name: 'Spend by member' }).count()).toBe(0);
  });
});
