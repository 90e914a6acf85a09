import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeGitHubApp } from '../fakes/fake-github-app.js';
import { createAccount, sessionCookie } from '../helpers/accounts.js';
import { appModel, appPullRequest, installationPayload, newRepo, publication } from '../helpers/github-app-world.js';
import { githubOAuth, githubUser } from '../helpers/github-login.js';
import { SAMPLE_DIFF, SAMPLE_FINDINGS } from '../helpers/review-fixtures.js';
import { signedDelivery } from '../helpers/webhooks.js';
import { browserWorld, expectAccessible, expectHeading, SCREENSHOT_DIR, type BrowserWorld } from './browser-world.js';

const SHA = 'd'.repeat(40);

/** decisions.md §13 in a browser: a fresh service, one click on /settings/github, and the App works. */
describe('setup in one step, in the browser', () => {
  let world: BrowserWorld<FakeGitHubApp>;
  beforeAll(async () => {
    world = await browserWorld({ env: { GITHUB_WEBHOOK_SECRET: '', GITHUB_CLIENT_ID: '', GITHUB_CLIENT_SECRET: '' }, github: new FakeGitHubApp() });
  }, 60_000);
  afterAll(() => world?.close());
  afterEach(() => {
    expect(world.errors.splice(0), 'console errors').toEqual([]);
  });

  it('the operator presses "Create the GitHub App", confirms on GitHub, and sees the App; then a pull request is reviewed and posted', async () => {
    const { t, github } = world;
    const operator = await createAccount(t.app, t.outbox);
    const context = await world.context();
    await context.addCookies([{ name: 'session', value: operator.cookie.split('=')[1]!, url: world.baseUrl }]);
    const page = await world.page(context);

    await page.goto('/settings/github');
    await expectHeading(page, 'GitHub');
    await page.getByLabel('Organization (optional)').waitFor();
    await expectAccessible(page, '/settings/github before setup');
    await page.getByRole('button', { name: 'Create the GitHub App' }).click();

    // GitHub's confirmation page, then back to the service.
    await page.getByRole('button', { name: /Create GitHub App for/ }).click();
    await page.waitForURL(`${world.baseUrl}/settings/github`);
    await page.getByText(github.slug).waitFor();
    const settings = page.getByRole('link', { name: 'Open its settings on GitHub' });
    expect(await settings.getAttribute('href')).toBe(`${github.url}/settings/apps/${github.slug}`);
    await page.getByText('kept encrypted in the database').waitFor();
    expect(await page.getByRole('button', { name: 'Create the GitHub App' }).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Install the GitHub App' }).getAttribute('href')).toBe('/github/install');
    await expectAccessible(page, '/settings/github after setup');
    await page.screenshot({ path: `${SCREENSHOT_DIR}github-app-setup.png`, fullPage: true });

    // Without a restart: an installation, and a pull request through it, reviewed and posted.
    const secret = github.manifests.credentials!.webhookSecret;
    const profile = githubUser();
    const cookie = sessionCookie(await githubOAuth(t.app, github, profile));
    const repo = newRepo();
    github.install(5201, [repo.full_name]);
    expect((await t.app.inject(await signedDelivery(installationPayload('created', 5201, profile.id, [repo]), { event: 'installation', secret }))).statusCode).toBe(200);
    world.model.reply(appModel(SAMPLE_FINDINGS));
    const payload = appPullRequest(5201, repo, profile.id, { headSha: SHA, number: 4 });
    github.openPull(repo.full_name, 4, SHA, SAMPLE_DIFF);
    expect((await t.app.inject(await signedDelivery(payload, { secret }))).statusCode).toBe(200);
    await publication(t.app, cookie, payload.pull_request.id, (review) => review.publication.state === 'published', 40_000);
    expect(github.submittedReviews(repo.full_name, 4)).toHaveLength(1);
  }, 90_000);

  it('a user who is not the operator sees the install link and no setup', async () => {
    const someone = await createAccount(world.t.app, world.t.outbox);
    const context = await world.context();
    await context.addCookies([{ name: 'session', value: someone.cookie.split('=')[1]!, url: world.baseUrl }]);
    const page = await world.page(context);
    await page.goto('/settings/github');
    await page.getByRole('link', { name: 'Install the GitHub App' }).waitFor();
    expect(await page.getByRole('heading', { name: "This service's GitHub App" }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Create the GitHub App' }).count()).toBe(0);
  });
});
