import { mkdir } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, type Account } from '../helpers/accounts.js';
import { invitationToken } from '../helpers/orgs.js';
import { browserWorld, expectAccessible, expectHeading, signedInPage, SCREENSHOT_DIR, type BrowserWorld } from './browser-world.js';

/** decisions.md §15's pages: creating an organization, the switcher, inviting, and accepting from the email. */
describe('organizations in the browser', () => {
  let world: BrowserWorld;
  let lead: Account;
  let invitee: Account;
  let page: Page;
  let orgId: string;

  beforeAll(async () => {
    world = await browserWorld();
    await mkdir(SCREENSHOT_DIR, { recursive: true });
    lead = await createAccount(world.t.app, world.t.outbox, { name: 'Lena Lead' });
    invitee = await createAccount(world.t.app, world.t.outbox, { name: 'Ivo Invitee' });
    page = await signedInPage(world, lead.cookie);
  }, 60_000);
  afterAll(() => world?.close());
  afterEach(() => {
    expect(world.errors.splice(0), 'console errors').toEqual([]);
  });

  it('creates an organization from the header and lands on its settings', async () => {
    await page.goto('/');
    await page.getByRole('link', { name: 'New organization' }).click();
    await page.waitForURL(/\/orgs\/new/);
    await expectHeading(page, 'New organization');
    await expectAccessible(page, '/orgs/new');
    await page.getByLabel('Name').fill('Platform Team');
    await page.getByRole('button', { name: 'Create organization' }).click();
    await page.waitForURL(/\/orgs\/[0-9a-f-]{36}\/settings\/members\?org=/);
    orgId = /\/orgs\/([0-9a-f-]{36})\//.exec(page.url())![1]!;
    await expectHeading(page, 'Platform Team');
    await page.getByRole('listitem', { name: 'Lena Lead' }).waitFor();
    await expectAccessible(page, '/orgs/:orgId/settings/members');
  });

  it('the switcher keeps the organization in the URL across pages, and goes back to Personal', async () => {
    const switcher = page.getByLabel('Organization', { exact: true });
    expect(await switcher.inputValue()).toBe(orgId);
    expect(await switcher.locator('option').allTextContents()).toEqual(['Personal', 'Platform Team']);
    // The pull-request list asks the API for the chosen organization's pull requests.
    const listed = page.waitForRequest((request) => new URL(request.url()).pathname === '/pull-request/list' && new URL(request.url()).searchParams.get('org') === orgId);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Pull requests' }).click();
    await page.waitForURL((url) => url.pathname === '/pulls' && url.searchParams.get('org') === orgId);
    await listed;
    expect(await switcher.inputValue()).toBe(orgId);
    await switcher.selectOption({ label: 'Personal' });
    await page.waitForURL((url) => url.pathname === '/pulls' && !url.searchParams.has('org'));
    await page.getByRole('link', { name: 'New organization' }).waitFor();
    await switcher.selectOption({ label: 'Platform Team' });
    await page.waitForURL((url) => url.searchParams.get('org') === orgId);
    await page.getByRole('link', { name: 'Organization settings' }).click();
    await page.waitForURL(/\/settings\/members/);
    await expectAccessible(page, 'the header with an organization chosen');
  });

  it('invites by email, lists the pending invitation, and revokes another', async () => {
    const since = await world.t.outbox.mark();
    await page.getByLabel('Email').fill(invitee.email);
    await page.getByLabel('Role', { exact: true }).selectOption('member');
    await page.getByRole('button', { name: 'Invite' }).click();
    await page.getByText(`Invitation sent to ${invitee.email}.`).waitFor();
    await page.getByRole('listitem', { name: invitee.email }).waitFor();
    await invitationToken(world.t.outbox, invitee.email, since);

    await page.getByLabel('Email').fill('wrong-address@example.com');
    await page.getByRole('button', { name: 'Invite' }).click();
    const wrong = page.getByRole('listitem', { name: 'wrong-address@example.com' });
    await wrong.waitFor();
    await expectAccessible(page, 'members with pending invitations');
    await page.screenshot({ path: `${SCREENSHOT_DIR}org-members.png`, fullPage: true });
    await wrong.getByRole('button', { name: 'Revoke' }).click();
    await wrong.waitFor({ state: 'detached' });
    await page.getByRole('listitem', { name: invitee.email }).waitFor();
  });

  it('a signed-out visitor opens the emailed link, signs in, comes back and accepts', async () => {
    const token = await invitationToken(world.t.outbox, invitee.email);
    const visitor = await world.page();
    await visitor.goto(`/invitations/${token}`);
    await expectHeading(visitor, 'Join Platform Team');
    await visitor.getByText('as member').waitFor();
    await expectAccessible(visitor, '/invitations/:token signed out');
    await visitor.screenshot({ path: `${SCREENSHOT_DIR}invitation.png`, fullPage: true });
    await visitor.getByRole('link', { name: 'Sign in to accept' }).click();
    await visitor.waitForURL(/\/login\?redirect=/);
    await visitor.getByLabel('Email').fill(invitee.email);
    await visitor.getByLabel('Password').fill(invitee.password);
    await visitor.getByRole('button', { name: 'Sign in' }).click();
    await visitor.waitForURL((url) => url.pathname === `/invitations/${token}`);
    await visitor.getByRole('button', { name: 'Accept invitation' }).click();
    await visitor.waitForURL(new RegExp(`/orgs/${orgId}/settings/members`));
    await expectHeading(visitor, 'Platform Team');

    // A member sees the settings without their controls, and no Audit log tab.
    await visitor.getByRole('listitem', { name: 'Lena Lead' }).waitFor();
    const tabs = visitor.getByRole('navigation', { name: 'Organization settings' });
    expect(await tabs.getByRole('link').allTextContents()).toEqual(['Members', 'Review', 'Providers', 'Installations', 'Spend limit']);
    expect(await visitor.getByRole('button', { name: 'Invite' }).count()).toBe(0);
    expect(await visitor.getByRole('combobox', { name: /^Role of/ }).count()).toBe(0);
    await tabs.getByRole('link', { name: 'Spend limit' }).click();
    await visitor.getByText('No limit').waitFor();
    expect(await visitor.getByRole('button', { name: 'Save' }).count()).toBe(0);
    await expectAccessible(visitor, 'settings as a member');
    await visitor.screenshot({ path: `${SCREENSHOT_DIR}org-member-view.png`, fullPage: true });
  });

  it('the owner changes a role, sets the limit and reads the audit log', async () => {
    await page.reload();
    const row = page.getByRole('listitem', { name: 'Ivo Invitee' });
    await row.getByLabel('Role of Ivo Invitee').selectOption('admin');
    await expect.poll(() => row.getByLabel('Role of Ivo Invitee').inputValue()).toBe('admin');
    const tabs = page.getByRole('navigation', { name: 'Organization settings' });
    await tabs.getByRole('link', { name: 'Spend limit' }).click();
    await page.getByLabel('Monthly limit (USD)').fill('40');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('$40.00 a month').waitFor();
    await tabs.getByRole('link', { name: 'Audit log' }).click();
    const table = page.getByRole('table');
    await table.waitFor();
    await expect.poll(() => table.locator('tbody tr').count()).toBe(7);
    const actions = await table.locator('tbody tr td:nth-child(3)').allTextContents();
    expect(actions).toEqual(['spend_limit.changed', 'member.role_changed', 'member.joined', 'invitation.revoked', 'member.invited', 'member.invited', 'org.created']);
    await expectAccessible(page, 'the audit log');
    await page.screenshot({ path: `${SCREENSHOT_DIR}org-audit-log.png`, fullPage: true });
  });
});
