import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { uniqueEmail } from '../helpers/accounts.js';
import { browserWorld, expectAccessible, expectHeading, type BrowserWorld } from './browser-world.js';

/** Sign-up to deletion, in a real browser: every page of the account and its settings. */
describe('accounts and settings in the browser', () => {
  let world: BrowserWorld;
  beforeAll(async () => {
    world = await browserWorld();
  }, 60_000);
  afterAll(() => world?.close());
  afterEach(() => {
    expect(world.errors.splice(0), 'console errors').toEqual([]);
  });

  const name = 'Ada Lovelace';
  const email = uniqueEmail('ada');
  let password = 'correct horse battery';
  let page: Page;

  it('signs up with the emailed code and lands where it was going', async () => {
    page = await world.page();
    await page.goto('/settings/review');
    // Signed out: to /login, remembering the page asked for.
    await page.waitForURL(/\/login\?redirect=%2Fsettings%2Freview/);
    await expectHeading(page, 'Sign in');
    // The first page's JavaScript, as sent (compressed): routes are split, so it stays small.
    const script = await page.evaluate<{ encoded: number; decoded: number; files: number }>(
      `performance.getEntriesByType('resource').filter((entry) => entry.name.endsWith('.js'))
        .reduce((sum, entry) => ({ encoded: sum.encoded + entry.encodedBodySize, decoded: sum.decoded + entry.decodedBodySize, files: sum.files + 1 }), { encoded: 0, decoded: 0, files: 0 })`,
    );
    console.log(`first page: ${script.files} scripts, ${(script.encoded / 1024).toFixed(1)} KB compressed (${(script.decoded / 1024).toFixed(1)} KB uncompressed)`);
    expect(script.encoded).toBeLessThan(200 * 1024);
    expect(script.encoded).toBeLessThan(script.decoded / 2);
    await expectAccessible(page, '/login');
    await page.getByRole('link', { name: 'Create an account' }).click();
    await expectHeading(page, /create your account/i);

    // The API's own rules, checked before sending.
    await page.getByRole('button', { name: 'Create account' }).click();
    await expect.poll(() => page.getByText('must not be empty').count()).toBeGreaterThan(0);
    await page.getByLabel('Name').fill(name);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await expectAccessible(page, '/signup');
    await page.getByRole('button', { name: 'Create account' }).click();

    await page.getByLabel('Verification code').waitFor();
    await page.getByLabel('Verification code').fill('000000');
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByRole('alert').waitFor();
    const code = await world.t.outbox.code(email);
    await page.getByLabel('Verification code').fill(code);
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL(/\/settings\/review$/);
    await expectHeading(page, 'Review settings');
  });

  it('saves the review settings and shows them after a reload', async () => {
    await page.getByLabel('Focused model').selectOption('platform-b');
    await page.getByLabel('System prompt').fill('Be terse.');
    await page.getByLabel('Deep prompt').fill('Look for races.');
    await expectAccessible(page, '/settings/review');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved.').waitFor();
    await page.reload();
    await expect.poll(() => page.getByLabel('Focused model').inputValue()).toBe('platform-b');
    expect(await page.getByLabel('System prompt').inputValue()).toBe('Be terse.');
    expect(await page.getByLabel('Deep prompt').inputValue()).toBe('Look for races.');
    expect(await page.getByLabel('Quick model').inputValue()).toBe('');
  });

  it('probes and saves a provider key, which is never shown again, then disables and deletes it', async () => {
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Providers' }).click();
    await expectHeading(page, 'AI providers');
    await page.getByText('No provider keys yet').waitFor();
    await page.getByLabel('Provider').selectOption('custom');
    await page.getByLabel('Base URL').fill(world.model.url);
    await page.getByLabel('API key').fill('sk-browser-test-key');
    await page.getByRole('button', { name: 'Check models' }).click();
    await page.getByText(/1 models/).waitFor();
    await page.getByRole('button', { name: 'Save key' }).click();
    await page.getByText(/Saved with 1 models/).waitFor();
    expect(await page.getByLabel('API key').inputValue()).toBe('');
    const row = page.getByRole('listitem').filter({ hasText: 'Custom' });
    await row.getByText('1 models').waitFor();
    await expectAccessible(page, '/settings/providers');

    await page.reload();
    await expectHeading(page, 'AI providers');
    expect(await page.content()).not.toContain('sk-browser-test-key');
    const enabled = page.getByRole('switch', { name: 'Enabled' });
    await expect.poll(() => enabled.isChecked()).toBe(true);
    await enabled.click();
    await expect.poll(async () => (await world.t.app.inject({ method: 'GET', url: '/byok/providers', headers: { cookie: await cookieHeader(page) } })).json<Array<{ enabled: boolean }>>()[0]?.enabled).toBe(false);
    await page.reload();
    await expect.poll(() => page.getByRole('switch', { name: 'Enabled' }).isChecked()).toBe(false);

    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByText('Delete the Custom key?').waitFor();
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByText('No provider keys yet').waitFor();
  });

  it('updates the profile and shows the allowance', async () => {
    await page.goto('/settings/profile');
    await expectHeading(page, 'Profile');
    await page.getByText('$0.00 of $5.00').waitFor();
    await page.getByLabel('Name').fill('Ada King');
    await page.getByLabel('Email notifications').uncheck();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved.').waitFor();
    await expectAccessible(page, '/settings/profile');
    await page.reload();
    await expect.poll(() => page.getByLabel('Name').inputValue()).toBe('Ada King');
    expect(await page.getByLabel('Email notifications').isChecked()).toBe(false);
  });

  it('shows the GitHub page with its link, and its empty state while the App is not configured', async () => {
    await page.goto('/settings/github');
    await expectHeading(page, 'GitHub');
    const connect = page.getByRole('link', { name: 'Connect GitHub' });
    expect(await connect.getAttribute('href')).toBe('/auth/codehost');
    expect(await page.getByRole('link', { name: 'Install the GitHub App' }).getAttribute('href')).toBe('/github/install');
    await page.getByText('No installations yet').waitFor();
    await expectAccessible(page, '/settings/github');
  });

  it('resets a forgotten password with the emailed code', async () => {
    const other = await world.page();
    await other.goto('/forgot-password');
    await expectHeading(other, /reset your password/i);
    await other.getByLabel('Email').fill(email);
    // The sign-up's email is there already: the reset's code is the one that comes after it.
    const since = await world.t.outbox.mark();
    await other.getByRole('button', { name: 'Send code' }).click();
    await other.getByLabel('Verification code').waitFor();
    const code = await world.t.outbox.code(email, { subject: undefined, since });
    await other.getByLabel('Verification code').fill(code);
    await other.getByLabel('New password').fill('a brand new password');
    await expectAccessible(other, '/forgot-password');
    await other.getByRole('button', { name: 'Reset password' }).click();
    await other.getByText('Your password was changed.').waitFor();
    password = 'a brand new password';
  });

  it('signs out everywhere from a second browser, and the first one must sign in again', async () => {
    // The reset revoked every session: the first browser signs in again, back to the page asked for.
    await page.goto('/pulls');
    await signIn(page, /\/login\?redirect=%2Fpulls/);
    await page.waitForURL(/\/pulls$/);
    await expectHeading(page, 'Pull requests');

    const second = await world.page();
    await second.goto('/');
    await signIn(second, /\/login/);
    await second.waitForURL(`${world.baseUrl}/`);
    await expectHeading(second, /welcome back/i);
    await second.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
    await second.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Sessions' }).click();
    await expectHeading(second, 'Sessions');
    await expect.poll(() => second.getByText('This device').count()).toBe(1);
    expect(await second.locator('.session-row').count()).toBe(2);
    await expectAccessible(second, '/settings/sessions');
    await second.getByRole('button', { name: 'Sign out everywhere' }).click();
    await second.waitForURL(/\/login/);

    // The first browser's session is gone too: its next page asks it to sign in.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Chat' }).click();
    await page.reload();
    await signIn(page, /\/login\?redirect=%2Fchat/);
    await page.waitForURL(/\/chat$/);
    await expectHeading(page, 'New conversation');
  });

  it('refuses to send anyone elsewhere after sign-in (open redirect)', async () => {
    const other = await world.page();
    await other.goto('/login?redirect=//evil.example/steal');
    await signIn(other, /\/login/);
    await other.waitForURL(`${world.baseUrl}/`);
  });

  it('deletes the account after the email is typed to confirm', async () => {
    await page.goto('/settings/profile');
    await page.getByRole('button', { name: 'Delete account' }).click();
    const confirm = page.getByLabel('Type your email to confirm');
    await confirm.fill('someone-else@example.com');
    expect(await page.getByRole('button', { name: 'Delete account' }).isDisabled()).toBe(true);
    await confirm.fill(email);
    await page.getByRole('button', { name: 'Delete account' }).click();
    await page.waitForURL(/\/login/);
    const login = await world.t.app.inject({ method: 'POST', url: '/auth/login', payload: { email, password } });
    expect(login.statusCode).toBe(401);
  });

  async function signIn(target: Page, at: RegExp) {
    await target.waitForURL(at);
    await target.getByLabel('Email').fill(email);
    await target.getByLabel('Password').fill(password);
    await target.getByRole('button', { name: 'Sign in' }).click();
  }
});

async function cookieHeader(page: Page): Promise<string> {
  const cookies = await page.context().cookies();
  return cookies.map((cookie) => `${cookie.name}=${cookie.value}`).join('; ');
}
