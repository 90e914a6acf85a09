import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ACCESS, FakeGitLab } from '../fakes/fake-gitlab.js';
import { createAccount, type Account } from '../helpers/accounts.js';
import { browserWorld, expectAccessible, expectHeading, SCREENSHOT_DIR, type BrowserWorld } from './browser-world.js';

/** `/settings/gitlab` (decisions.md §12) against the fake GitLab: connect, see the status, disconnect. */
describe('the GitLab settings page in the browser', () => {
  let world: BrowserWorld;
  let gitlab: FakeGitLab;
  let account: Account;
  let page: Page;
  let projectId: number;
  const maintainer = { id: 31, username: 'maria', name: 'Maria' };

  beforeAll(async () => {
    gitlab = await new FakeGitLab().start();
    projectId = gitlab.addProject('acme/backend/api').id;
    gitlab.addMember(projectId, maintainer, ACCESS.maintainer);
    world = await browserWorld();
    account = await createAccount(world.t.app, world.t.outbox);
    const context = await world.context();
    const [name, value] = account.cookie.split('=') as [string, string];
    await context.addCookies([{ name, value, url: world.baseUrl }]);
    page = await world.page(context);
  }, 60_000);
  afterAll(async () => {
    await world?.close();
    await gitlab?.stop();
  });
  afterEach(() => {
    expect(world.errors.splice(0), 'console errors').toEqual([]);
  });

  it('is linked from the settings navigation and shows its empty state', async () => {
    await page.goto('/settings/profile');
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'GitLab' }).click();
    await page.waitForURL(/\/settings\/gitlab$/);
    await expectHeading(page, 'GitLab');
    await page.getByText('No GitLab projects connected yet').waitFor();
    await expectAccessible(page, '/settings/gitlab');
  });

  it("shows GitLab's reason when it refuses, and the field errors before sending anything", async () => {
    await page.getByRole('button', { name: 'Connect project' }).click();
    await page.getByText('must be a project path (group/project) or a numeric project id').waitFor();
    await page.getByLabel('GitLab URL').fill(gitlab.url);
    await page.getByLabel('Project', { exact: true }).fill('acme/backend/api');
    await page.getByLabel('Access token').fill('glpat-wrong');
    await page.getByRole('button', { name: 'Connect project' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('401 Unauthorized');
  });

  it('connects a project: its link and status are listed, the token never shown again; then disconnects after confirming', async () => {
    const token = gitlab.issueToken(maintainer);
    await page.getByLabel('Access token').fill(token);
    await page.getByRole('button', { name: 'Connect project' }).click();
    await page.getByText('Connected acme/backend/api.').waitFor();
    const row = page.getByRole('listitem', { name: 'acme/backend/api' });
    expect(await row.getByRole('link', { name: 'acme/backend/api' }).getAttribute('href')).toBe(`${gitlab.url}/acme/backend/api`);
    await row.getByText('active').waitFor();
    expect(await page.getByLabel('Access token').inputValue()).toBe('');
    expect(gitlab.project(projectId).hooks).toHaveLength(1);
    await expectAccessible(page, '/settings/gitlab with a connection');

    // A connection GitLab refused later shows as broken, with the reason.
    const [connection] = await world.t.app.services.gitlab.list(account.id);
    await world.t.app.services.gitlab.markBroken(connection!.id, '401 Unauthorized');
    await page.reload();
    await expectHeading(page, 'GitLab');
    await row.getByText('broken').waitFor();
    await row.getByText(/GitLab refused the token: 401 Unauthorized/).waitFor();
    expect(await page.content()).not.toContain(token);
    await page.screenshot({ path: `${SCREENSHOT_DIR}settings-gitlab.png`, fullPage: true });

    await row.getByRole('button', { name: 'Disconnect' }).click();
    await row.getByText('Disconnect acme/backend/api? Its webhook is removed.').waitFor();
    await row.getByRole('button', { name: 'Disconnect', exact: true }).click();
    await page.getByText('No GitLab projects connected yet').waitFor();
    expect(gitlab.project(projectId).hooks).toEqual([]);
  });
});
