import { mkdir } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { githubInstallations } from '../../src/db/schema/index.js';
import { createAccount, type Account } from '../helpers/accounts.js';
import { callAs, createOrg, joinedAccount, type Org } from '../helpers/orgs.js';
import { browserWorld, expectAccessible, signedInPage, SCREENSHOT_DIR, type BrowserWorld } from './browser-world.js';

/** decisions.md §15: the organization's Installations tab moves installations in and out; members see it without its controls. */
describe("an organization's Installations tab", () => {
  let world: BrowserWorld;
  let lead: Account;
  let member: Account;
  let org: Org;
  let page: Page;
  const installationId = 4_500_000 + Math.floor(Math.random() * 90_000);

  beforeAll(async () => {
    world = await browserWorld();
    await mkdir(SCREENSHOT_DIR, { recursive: true });
    lead = await createAccount(world.t.app, world.t.outbox, { name: 'Ida Installer' });
    org = await createOrg(world.t.app, lead, 'Install Crew');
    member = await joinedAccount(world.t.app, world.t.outbox, lead, org.id, 'member', 'Max Member');
    // The lead's installation of the App, as its installation event records it.
    await world.t.app.db.insert(githubInstallations).values({
      id: installationId,
      userId: lead.id,
      senderId: 1,
      accountId: 2,
      accountLogin: 'install-crew',
      accountType: 'Organization',
      repositorySelection: 'all',
    });
    page = await signedInPage(world, lead.cookie);
  }, 60_000);
  afterAll(async () => {
    await world?.close();
  });
  afterEach(() => {
    expect(world.errors.splice(0), 'console errors').toEqual([]);
  });

  const orgOf = async () => (await world.t.app.repos.installations.find(installationId))?.orgId;

  it('an owner moves the installation in, then out', async () => {
    await page.goto(`/orgs/${org.id}/settings/members?org=${org.id}`);
    await page.getByRole('navigation', { name: 'Organization settings' }).getByRole('link', { name: 'Installations' }).click();
    await page.waitForURL(/\/settings\/installations/);
    await page.getByRole('heading', { level: 2, name: 'Installations' }).waitFor();
    await page.getByRole('button', { name: 'Move into Install Crew: install-crew' }).click();
    await page.getByRole('button', { name: 'Move out: install-crew' }).waitFor();
    expect(await orgOf()).toBe(org.id);
    await expectAccessible(page, '/orgs/:orgId/settings/installations');
    await page.screenshot({ path: `${SCREENSHOT_DIR}org-installations.png`, fullPage: true });
    const audit = (await callAs(world.t.app, lead.cookie, 'GET', `/orgs/${org.id}/audit`)).json<{ items: Array<{ action: string }> }>();
    expect(audit.items[0]!.action).toBe('installation.moved');

    const memberPage = await signedInPage(world, member.cookie);
    await memberPage.goto(`/orgs/${org.id}/settings/installations?org=${org.id}`);
    await memberPage.getByText('install-crew').waitFor();
    await memberPage.getByText('Only owners and admins move installations and connections.').waitFor();
    expect(await memberPage.getByRole('button').filter({ hasText: /Move/ }).count()).toBe(0);
    await expectAccessible(memberPage, 'installations, read-only');

    await page.getByRole('button', { name: 'Move out: install-crew' }).click();
    await page.getByRole('button', { name: 'Move into Install Crew: install-crew' }).waitFor();
    expect(await orgOf()).toBeNull();
  });
});
