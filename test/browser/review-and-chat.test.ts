import { rmSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../helpers/accounts.js';
import { createGitFixture } from '../helpers/git-fixture.js';
import { signInWithGitHub, type GitHubSignIn } from '../helpers/github-login.js';
import { SAMPLE_DIFF, SAMPLE_HEAD_FILES, settledReview } from '../helpers/review-fixtures.js';
import { deliverPullRequest } from '../helpers/review-world.js';
import { generateSyntheticDiff } from '../helpers/synthetic-diff.js';
import { browserWorld, expectAccessible, expectHeading, signedInPage, SCREENSHOT_DIR, type BrowserWorld } from './browser-world.js';

/** The app's heart in a real browser: a webhook's review, its findings in the diff, a re-run, a chat. */
describe('reviews and chat in the browser', () => {
  let world: BrowserWorld;
  let author: GitHubSignIn;
  let page: Page;
  let prId: number;
  let slowChat = false;
  let reviewDelayMs = 0;
  beforeAll(async () => {
    world = await browserWorld({
      reviewDelayMs: () => reviewDelayMs,
      chatReply: () =>
        slowChat
          ? { text: 'The loop reads `values[values.length]`:\n\n- it runs one step too far\n- use `i < values.length`', chunks: 6, chunkDelayMs: 600 }
          : { text: 'Fine.' },
    });
    await mkdir(SCREENSHOT_DIR, { recursive: true });
    author = await signInWithGitHub(world.t.app, world.github);
    page = await signedInPage(world, author.cookie);
  }, 60_000);
  let fixtureDir: string | undefined;
  afterAll(async () => {
    await world?.close();
    if (fixtureDir) rmSync(fixtureDir, { recursive: true, force: true });
  });
  afterEach(() => {
    expect(world.errors.splice(0), 'console errors').toEqual([]);
  });

  it('opens a webhook’s review from the list, with its findings in the diff', async () => {
    // The repository's code at the head, so the review reads the code around the change, as in real use.
    const fixture = createGitFixture([SAMPLE_HEAD_FILES]);
    fixtureDir = fixture.dir;
    world.github.code.serveRepository('Codertocat/Hello-World', fixture.dir);
    const payload = await deliverPullRequest(world, author, SAMPLE_DIFF, { title: 'Rewrite average() as a loop', headSha: fixture.shas[0]! });
    prId = payload.pull_request.id;
    await settledReview(world.t.app, author.cookie, prId);

    await page.goto('/');
    await expectHeading(page, /welcome back/i);
    await page.getByRole('heading', { name: 'Recent reviews' }).waitFor();
    await page.getByText('$0.00 of $5.00').or(page.getByText(/^\$0\.\d\d of \$5\.00$/)).first().waitFor();
    await expectAccessible(page, '/');

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Pull requests' }).click();
    await expectHeading(page, 'Pull requests');
    await page.getByRole('searchbox', { name: 'Search pull requests' }).fill('average');
    await page.getByLabel('Review status').selectOption('completed');
    await expectAccessible(page, '/pulls');
    const started = Date.now();
    await page.getByRole('link', { name: 'Rewrite average() as a loop' }).click();
    await expectHeading(page, 'Rewrite average() as a loop');
    const finding = page.getByRole('article', { name: /CRITICAL Off-by-one/ }).first();
    await finding.waitFor();
    const findingsShownMs = Date.now() - started;

    // The findings, most severe first, with their place, failure scenario and fix.
    await page.getByText('src/math.ts:3').first().waitFor();
    await page.getByText(/reads values\[2\], which is undefined/).first().waitFor();
    await page.getByText('Use i < values.length.').first().waitFor();
    // Each finding also sits in the diff at its line, and the skipped lock file is listed with its reason.
    const inDiff = page.getByRole('region', { name: 'Diff of src/math.ts' });
    await inDiff.getByRole('article', { name: /CRITICAL Off-by-one/ }).waitFor();
    await inDiff.getByText('total += values[i];').waitFor();
    await page.getByRole('heading', { name: 'Skipped files' }).waitFor();
    await page.getByText('package-lock.json').first().waitFor();
    await page.getByText(/score/i).first().waitFor();

    await page.getByRole('button', { name: 'Copy fix prompt' }).click();
    await page.getByText('Fix prompt copied').waitFor();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe('Fix the loop bound in src/math.ts.');
    await expectAccessible(page, '/pulls/:prId');
    await page.screenshot({ path: `${SCREENSHOT_DIR}review-page.png`, fullPage: false });
    await inDiff.getByRole('article', { name: /CRITICAL Off-by-one/ }).scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SCREENSHOT_DIR}review-diff.png`, fullPage: false });
    console.log(`review page: findings shown ${findingsShownMs} ms after the click`);
  });

  it('re-runs the review in deep mode and follows it live', async () => {
    const completionsBefore = world.model.completions().length;
    // A slower model, so the page shows the pipeline at work.
    reviewDelayMs = 1_500;
    await page.getByLabel('Mode').selectOption('deep');
    await page.getByRole('button', { name: 'Re-run review' }).click();
    await page.getByRole('heading', { name: /Review in progress/ }).waitFor();
    await page.getByText('The model is reviewing').first().waitFor({ timeout: 20_000 });
    await page.getByRole('heading', { name: /Review in progress/ }).waitFor({ state: 'detached', timeout: 30_000 });
    reviewDelayMs = 0;
    await page.locator('.pr-facts').getByText('completed').waitFor();
    await page.locator('.pr-facts').getByText('deep').waitFor();
    await page.getByRole('article', { name: /CRITICAL Off-by-one/ }).first().waitFor();
    expect(world.model.completions().length).toBeGreaterThan(completionsBefore);
  });

  it('streams a chat answer about the pull request into the page', async () => {
    slowChat = true;
    await page.getByRole('link', { name: 'Ask about this pull request' }).click();
    await page.waitForURL(/\/chat\?prId=/);
    await expectHeading(page, 'New conversation');
    await expectAccessible(page, '/chat');
    await page.getByLabel('Model').selectOption({ label: 'Platform B' });
    await page.getByRole('textbox', { name: 'Message' }).fill('Why is the loop wrong?');
    await page.getByRole('button', { name: 'Send' }).click();
    // The answer arrives in parts: some of it shows before the rest has come.
    await page.getByText('The loop reads').waitFor();
    const partial = await page.locator('.message-assistant').last().innerText();
    await page.getByRole('listitem').filter({ hasText: 'use i < values.length' }).waitFor();
    expect(partial).not.toContain('use i < values.length');
    await page.waitForURL(/\/chat\/[0-9a-f-]{36}$/);
    await page.getByRole('link', { name: /Loop bound question/ }).waitFor();
    await expectHeading(page, 'Loop bound question');
    // Rendered as Markdown: the code span and the list.
    await page.locator('.message-assistant code', { hasText: 'values[values.length]' }).waitFor();
    await page.getByRole('button', { name: 'Good answer' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Good answer' }).getAttribute('aria-pressed')).toBe('true');
    await expectAccessible(page, '/chat/:id');
    await page.screenshot({ path: `${SCREENSHOT_DIR}chat.png`, fullPage: false });

    slowChat = false;
    await page.getByRole('button', { name: 'Regenerate' }).click();
    await page.getByText('Fine.').waitFor();
    await expect.poll(() => page.locator('.exchange').count()).toBe(2);
    const history = await world.t.app.inject({ method: 'GET', url: '/conversation', headers: { cookie: author.cookie } });
    expect(history.json<unknown[]>()).toHaveLength(1);
  });

  it('shows the first file of a 2,000-file pull request quickly, rendering only what is on screen', async () => {
    const diff = generateSyntheticDiff({ files: 2_000, changedLines: 30_000 });
    const payload = await deliverPullRequest(world, author, diff, { title: 'A very large refactor' });
    await settledReview(world.t.app, author.cookie, payload.pull_request.id, { timeoutMs: 120_000 });
    const other = await world.page(page.context());
    const started = Date.now();
    await other.goto(`/pulls/${payload.pull_request.id}`);
    await other.locator('.diff-file').first().waitFor();
    const firstFileMs = Date.now() - started;
    const rendered = await other.locator('.diff-file').count();
    expect(rendered).toBeLessThan(60);
    await other.mouse.wheel(0, 20_000);
    await other.locator('.diff-file').first().waitFor();
    console.log(`2,000-file pull request: first file shown ${firstFileMs} ms after navigation; ${rendered} files rendered`);
  }, 180_000);

  it('never shows another user’s review', async () => {
    const stranger = await createAccount(world.t.app, world.t.outbox);
    const context = await world.context();
    const [name, value] = stranger.cookie.split('=') as [string, string];
    await context.addCookies([{ name, value, url: world.baseUrl }]);
    const strangerPage = await world.page(context);
    await strangerPage.goto(`/pulls/${prId}`);
    await expectHeading(strangerPage, 'Pull request');
    expect(await strangerPage.content()).not.toContain('Off-by-one');
  });
});
