import { mkdir } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, type Account } from '../helpers/accounts.js';
import { bearer } from '../helpers/api-tokens.js';
import { browserWorld, expectAccessible, expectHeading, signedInPage, SCREENSHOT_DIR, type BrowserWorld } from './browser-world.js';

/** decisions.md §17's page: create a token (shown once, with Copy), its last use, revoke it. */
describe('the API tokens page in the browser', () => {
  let world: BrowserWorld;
  let account: Account;
  let page: Page;
  let token: string;

  beforeAll(async () => {
    world = await browserWorld();
    await mkdir(SCREENSHOT_DIR, { recursive: true });
    account = await createAccount(world.t.app, world.t.outbox);
    page = await signedInPage(world, account.cookie);
  }, 180_000); // a service, a built app and Chromium: slow to start on a loaded machine
  afterAll(() => world?.close());
  afterEach(() => {
    expect(world.errors.splice(0), 'console errors').toEqual([]);
  });

  const session = (value: string) => world.t.app.inject({ method: 'GET', url: '/auth/session', headers: bearer(value) });

  it('is reached from the settings navigation and starts empty', async () => {
    await page.goto('/settings/profile');
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'API tokens' }).click();
    await page.waitForURL(/\/settings\/tokens$/);
    await expectHeading(page, 'API tokens');
    await page.getByText('No tokens yet').waitFor();
    await expectAccessible(page, '/settings/tokens (empty)');
  });

  it('checks the fields with the API’s own rules before sending', async () => {
    await page.getByLabel('Expires in (days)').fill('400');
    await page.getByRole('button', { name: 'Create token' }).click();
    await page.getByText('must not be empty').waitFor();
    await page.getByText('must be at most 365').waitFor();
    await expectAccessible(page, '/settings/tokens (errors)');
  });

  it('creates a token, shows it once with Copy, and the token works', async () => {
    await page.getByLabel('Name').fill('laptop');
    await page.getByLabel('Expires in (days)').fill('30');
    await page.getByRole('button', { name: 'Create token' }).click();
    const shown = page.getByLabel('New token');
    await shown.waitFor();
    token = await shown.inputValue();
    expect(token).toMatch(/^prt_[0-9A-Za-z]{32,}$/);
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByText('Copied.').waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(token);

    const row = page.getByRole('listitem', { name: 'laptop' });
    await row.getByText('never used').waitFor();
    await row.getByText(token.slice(0, 8)).waitFor();
    expect((await session(token)).json()).toMatchObject({ userId: account.id });
    await expectAccessible(page, '/settings/tokens (created)');
  });

  it('shows the last use, and never the token again after a reload', async () => {
    await page.reload();
    await expectHeading(page, 'API tokens');
    const row = page.getByRole('listitem', { name: 'laptop' });
    await row.getByText(/last used/).waitFor();
    await expect.poll(() => page.getByLabel('New token').count()).toBe(0);
    expect(await page.content()).not.toContain(token.slice(8));
    await page.screenshot({ path: `${SCREENSHOT_DIR}settings-tokens.png`, fullPage: true });
  });

  it('revokes after a confirmation, and the token stops working at once', async () => {
    const row = page.getByRole('listitem', { name: 'laptop' });
    await row.getByRole('button', { name: 'Revoke' }).click();
    await row.getByText('Revoke “laptop”?').waitFor();
    await expectAccessible(page, '/settings/tokens (confirm)');
    await row.getByRole('button', { name: 'Revoke', exact: true }).click();
    await page.getByText('No tokens yet').waitFor();
    expect((await session(token)).statusCode).toBe(401);
  });
});
