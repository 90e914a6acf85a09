import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bitbucketUser, FakeBitbucket } from '../fakes/fake-bitbucket.js';
import { createAccount, type Account } from '../helpers/accounts.js';
import { SAMPLE_DIFF, SAMPLE_HEAD_FILES, settledReview } from '../helpers/review-fixtures.js';
import { browserWorld, expectAccessible, expectHeading, SCREENSHOT_DIR, signedInPage, type BrowserWorld } from './browser-world.js';

const REPO = 'acme/widgets';
const HEAD = '7'.repeat(40);
const BASE = 'a'.repeat(40);

/** A Bitbucket pull request's review in the browser (decisions.md §16): listed with its host, its page (links.html.href) linked. */
describe('a Bitbucket pull request in the browser', () => {
  let world: BrowserWorld;
  let bitbucket: FakeBitbucket;
  let account: Account;
  let page: Page;

  beforeAll(async () => {
    bitbucket = await new FakeBitbucket().start();
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

  it('lists the pull request as Bitbucket #7 and opens its review, with its findings and a link to Bitbucket', async () => {
    const admin = bitbucketUser('Ada Admin');
    const author = bitbucketUser('Dev Eloper');
    bitbucket.addRepository(REPO);
    bitbucket.setPermission(REPO, admin, 'admin');
    const { email, token } = bitbucket.issueApiToken(admin, 'ada@example.com');
    const connected = await world.t.app.inject({ method: 'POST', url: '/bitbucket/connections', headers: { cookie: account.cookie }, payload: { workspace: 'acme', repoSlug: 'widgets', token, email } });
    expect(connected.statusCode, connected.body).toBe(201);
    bitbucket.openPullRequest(REPO, 7, { author, source: HEAD, destination: BASE, diff: SAMPLE_DIFF, title: 'Loop over the values' });
    for (const [path, content] of Object.entries(SAMPLE_HEAD_FILES)) bitbucket.setFile(REPO, HEAD, path, content);
    const delivered = await bitbucket.emit(REPO, 'pullrequest:created', bitbucket.eventPayload(REPO, 7, author));
    expect(delivered.map((delivery) => delivery.status)).toEqual([200]);
    const url = `${bitbucket.url}/${REPO}/pull-requests/7`;
    const [item] = (await world.t.app.inject({ method: 'GET', url: '/pull-request/list', headers: { cookie: account.cookie } })).json<Array<{ prId: string; provider: string; url: string }>>();
    expect(item).toMatchObject({ provider: 'bitbucket', url });
    const prId = item!.prId;
    await settledReview(world.t.app, account.cookie, prId);
    // Bitbucket's build status links back to the review page once the review is published, after it completed.
    await expect.poll(() => bitbucket.repository(REPO).statuses.map((status) => [status.state, status.url]), { timeout: 15_000 }).toEqual([['SUCCESSFUL', `${world.baseUrl}/pulls/${prId}`]]);

    await page.goto('/pulls');
    await expectHeading(page, 'Pull requests');
    const row = page.getByRole('listitem').filter({ hasText: 'Loop over the values' });
    await row.getByText(`${REPO} #7`).waitFor();
    await row.getByText('Bitbucket', { exact: true }).waitFor();
    expect(await row.getByRole('link', { name: 'Open on Bitbucket' }).getAttribute('href')).toBe(url);
    await expectAccessible(page, '/pulls with a Bitbucket pull request');

    await row.getByRole('link', { name: 'Loop over the values' }).click();
    await page.waitForURL(new RegExp(`/pulls/${prId}$`));
    await expectHeading(page, 'Loop over the values');
    await page.getByRole('article', { name: /CRITICAL Off-by-one/ }).first().waitFor();
    await page.getByText(`Bitbucket ${REPO} · feature-7 → main`).waitFor();
    expect(await page.getByRole('link', { name: 'Open on Bitbucket' }).getAttribute('href')).toBe(url);
    await page.getByRole('region', { name: 'Diff of src/math.ts' }).waitFor();
    await expectAccessible(page, 'a Bitbucket pull request’s review');
    await page.screenshot({ path: `${SCREENSHOT_DIR}review-bitbucket.png` });

    // The overview's recent reviews name the host too.
    await page.goto('/');
    const recent = page.getByRole('region', { name: 'Recent reviews' }).getByRole('listitem').filter({ hasText: 'Loop over the values' });
    await recent.getByText(`${REPO} #7`, { exact: false }).waitFor();
    expect(await recent.getByRole('link', { name: 'Open on Bitbucket' }).getAttribute('href')).toBe(url);
  });
});
