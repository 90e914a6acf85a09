import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bitbucketUser, FakeBitbucket, MESSAGES } from '../fakes/fake-bitbucket.js';
import { createAccount, type Account } from '../helpers/accounts.js';
import { callAs, createOrg } from '../helpers/orgs.js';
import { browserWorld, expectAccessible, expectHeading, SCREENSHOT_DIR, signedInPage, type BrowserWorld } from './browser-world.js';

const WIDGETS = 'acme/widgets';
const API = 'acme/api';

/** `/settings/bitbucket` (decisions.md §16) against the fake Bitbucket Cloud: connect with either token, see whether commands work, disconnect; move a connection into an organization (§15). */
describe('the Bitbucket settings page in the browser', () => {
  let world: BrowserWorld;
  let bitbucket: FakeBitbucket;
  let account: Account;
  let page: Page;
  const admin = bitbucketUser('Ada Admin');

  beforeAll(async () => {
    bitbucket = await new FakeBitbucket().start();
    bitbucket.addRepository(WIDGETS);
    bitbucket.addRepository(API);
    bitbucket.setPermission(API, admin, 'admin');
    world = await browserWorld({ env: { BITBUCKET_API_URL: bitbucket.apiUrl } });
    account = await createAccount(world.t.app, world.t.outbox);
    page = await signedInPage(world, account.cookie);
  }, 60_000);
  afterAll(async () => {
    await world?.close();
    await bitbucket?.stop();
  });
  afterEach(() => {
    expect(world.errors.splice(0), 'console errors').toEqual([]);
  });

  const rowOf = (name: string) => page.getByRole('listitem', { name });

  it('is linked from the settings navigation and shows its empty state', async () => {
    await page.goto('/settings/profile');
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Bitbucket' }).click();
    await page.waitForURL(/\/settings\/bitbucket$/);
    await expectHeading(page, 'Bitbucket');
    await page.getByText('No Bitbucket repositories connected yet').waitFor();
    await expectAccessible(page, '/settings/bitbucket');
  });

  it("shows the field errors before sending anything, and Bitbucket's reason when it refuses", async () => {
    await page.getByLabel('Workspace').fill('acme corp');
    await page.getByRole('button', { name: 'Connect repository' }).click();
    await page.getByText('must be a workspace slug (letters, digits, -, _ and .)').waitFor();
    await page.getByText('must not be empty').first().waitFor();
    await page.getByLabel('Atlassian account email').fill('not an email');
    await page.getByRole('button', { name: 'Connect repository' }).click();
    await page.getByText('must be a valid email address').waitFor();
    expect(bitbucket.requests).toEqual([]);

    await page.getByLabel('Workspace').fill('acme');
    await page.getByLabel('Repository', { exact: true }).fill('widgets');
    await page.getByLabel('Access token').fill('ATCTT3xFfGN0-wrong');
    await page.getByLabel('Atlassian account email').fill('');
    await page.getByRole('button', { name: 'Connect repository' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain(MESSAGES.unauthorized);
    expect(bitbucket.repository(WIDGETS).hooks).toEqual([]);
  });

  it('connects with an access token: listed with its link, commands unavailable, the token never shown again', async () => {
    const { token } = bitbucket.issueAccessToken(WIDGETS);
    await page.getByLabel('Access token').fill(token);
    await page.getByRole('button', { name: 'Connect repository' }).click();
    await page.getByText(`Connected ${WIDGETS}.`).waitFor();
    const row = rowOf(WIDGETS);
    expect(await row.getByRole('link', { name: WIDGETS }).getAttribute('href')).toBe(`${bitbucket.url}/${WIDGETS}`);
    await row.getByText('active').waitFor();
    await row.getByText('commands unavailable').waitFor();
    await row.getByText(/An admin's Atlassian API token is needed for commands/).waitFor();
    expect(await page.getByLabel('Access token').inputValue()).toBe('');
    expect(bitbucket.repository(WIDGETS).hooks).toEqual([expect.objectContaining({ url: `${world.baseUrl}/webhook/bitbucket`, active: true })]);
    expect(await page.content()).not.toContain(token);
    await expectAccessible(page, '/settings/bitbucket with an access-token connection');
  });

  it("connects with an admin's API token and its email: commands available; a refused token shows as broken with Bitbucket's reason", async () => {
    const { email, token } = bitbucket.issueApiToken(admin, 'ada@example.com');
    await page.getByLabel('Repository', { exact: true }).fill('api');
    await page.getByLabel('Access token').fill(token);
    await page.getByLabel('Atlassian account email').fill(email);
    await page.getByRole('button', { name: 'Connect repository' }).click();
    await page.getByText(`Connected ${API}.`).waitFor();
    const row = rowOf(API);
    await row.getByText('commands available').waitFor();
    expect(await row.getByText(/needed for commands/).count()).toBe(0);
    expect(await page.getByLabel('Atlassian account email').inputValue()).toBe('');

    // The access token Bitbucket refused later: the connection stays listed as broken, with the reason.
    const connections = await world.t.app.services.bitbucket.list(account.id);
    await world.t.app.services.bitbucket.markBroken(connections.find((connection) => connection.repository.fullName === WIDGETS)!.id, MESSAGES.unauthorized);
    await page.reload();
    await expectHeading(page, 'Bitbucket');
    await rowOf(WIDGETS).getByText('broken').waitFor();
    await rowOf(WIDGETS).getByText(`Bitbucket refused the token: ${MESSAGES.unauthorized} Disconnect and connect again with a new token.`).waitFor();
    await rowOf(API).getByText('active').waitFor();
    expect(await page.content()).not.toContain(token);
    await expectAccessible(page, '/settings/bitbucket with two connections');
    await page.screenshot({ path: `${SCREENSHOT_DIR}settings-bitbucket.png`, fullPage: true });
  });

  it('disconnects after confirming: the webhook is removed', async () => {
    const row = rowOf(WIDGETS);
    await row.getByRole('button', { name: 'Disconnect' }).click();
    await row.getByText(`Disconnect ${WIDGETS}? Its webhook is removed.`).waitFor();
    await row.getByRole('button', { name: 'Cancel' }).click();
    await row.getByRole('button', { name: 'Disconnect' }).click();
    await row.getByRole('button', { name: 'Disconnect', exact: true }).click();
    await row.waitFor({ state: 'detached' });
    await rowOf(API).waitFor();
    expect(bitbucket.repository(WIDGETS).hooks).toEqual([]);
    expect(await world.t.app.services.bitbucket.list(account.id)).toHaveLength(1);
  });

  it("moves a connection into an organization from the organization's Installations tab, and out again", async () => {
    const org = await createOrg(world.t.app, account, 'Widget Works');
    const orgOf = async () => (await world.t.app.services.bitbucket.list(account.id))[0]!.orgId;
    await page.goto(`/orgs/${org.id}/settings/installations?org=${org.id}`);
    await page.getByRole('heading', { level: 2, name: 'Installations' }).waitFor();
    await page.getByText('Bitbucket connection').waitFor();
    await page.getByRole('button', { name: `Move into Widget Works: ${API}` }).click();
    await page.getByRole('button', { name: `Move out: ${API}` }).waitFor();
    expect(await orgOf()).toBe(org.id);
    await expectAccessible(page, '/orgs/:orgId/settings/installations with a Bitbucket connection');
    const audit = (await callAs(world.t.app, account.cookie, 'GET', `/orgs/${org.id}/audit`)).json<{ items: Array<{ action: string; target: string }> }>();
    expect(audit.items[0]).toMatchObject({ action: 'connection.moved', target: API });

    await page.getByRole('button', { name: `Move out: ${API}` }).click();
    await page.getByRole('button', { name: `Move into Widget Works: ${API}` }).waitFor();
    expect(await orgOf()).toBeNull();
  });
});
