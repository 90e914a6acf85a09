import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { AxeBuilder } from '@axe-core/playwright';
import { setTimeout as sleep } from 'node:timers/promises';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { WEB_DIST_DIR } from '../../src/plugins/app/web-app.js';
import type { FakeGitHub } from '../fakes/fake-github.js';
import type { ScriptedReply } from '../fakes/fake-openai-chat.js';
import { freePort } from '../helpers/net.js';
import { scriptedReviewer } from '../helpers/review-fixtures.js';
import { reviewWorld, type ReviewWorld } from '../helpers/review-world.js';

/** Debian's Chromium (apt-get install chromium); Playwright cannot download browsers here. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Screenshots go to a temporary folder; `UPDATE_SCREENSHOTS=1 npm test` refreshes the README's in docs/. */
export const SCREENSHOT_DIR = process.env.UPDATE_SCREENSHOTS === '1' ? new URL('../../docs/screenshots/', import.meta.url).pathname : `${join(tmpdir(), 'review-service-screenshots')}/`;

export interface BrowserWorld<G extends FakeGitHub = FakeGitHub> extends ReviewWorld<G> {
  baseUrl: string;
  browser: Browser;
  /** A new browser profile (its own cookies) whose pages fail the test on any console error. */
  context(): Promise<BrowserContext>;
  page(context?: BrowserContext): Promise<Page>;
  /** Console errors and uncaught exceptions seen so far, in every page. */
  errors: string[];
}

const EXPECTED_STATUS = /^Failed to load resource: the server responded with a status of (4\d\d|503)/;

/** A chat turn, told by the chat's system prompt: deep reviews call tools too, so tools alone do not tell. */
const isChat = (body: { messages: Array<{ role: string; content?: unknown }> }) =>
  body.messages.some((message) => message.role === 'system' && typeof message.content === 'string' && message.content.includes('helping the user'));
const isTitle = (messages: unknown) => JSON.stringify(messages).includes('Write a short title');

/**
 * The real service listening on a port (workers included), with the fake GitHub and model, and a
 * headless Chromium. The model reviews with the sample findings, names threads, and answers chat
 * messages with what `chatReply` returns.
 */
export async function browserWorld<G extends FakeGitHub = FakeGitHub>(
  options: { chatReply?: () => ScriptedReply; reviewDelayMs?: () => number; env?: Record<string, string>; github?: G } = {},
): Promise<BrowserWorld<G>> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const world = await reviewWorld({ PUBLIC_URL: baseUrl, FREE_ALLOWANCE_USD: '5', ...options.env }, options.github);
  const reviewer = scriptedReviewer();
  world.model.reply(async (request) => {
    if (isTitle(request.body.messages)) return { text: 'Loop bound question' };
    if (isChat(request.body)) return options.chatReply?.() ?? { text: 'A **short** answer.' };
    const delay = options.reviewDelayMs?.() ?? 0;
    if (delay > 0) await sleep(delay);
    return reviewer(request);
  });
  await world.t.app.listen({ port, host: '127.0.0.1' });
  expect(WEB_DIST_DIR).toBeTruthy();

  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  const errors: string[] = [];
  const contexts: BrowserContext[] = [];

  const context = async () => {
    const created = await browser.newContext({ baseURL: baseUrl, viewport: { width: 1280, height: 860 }, colorScheme: 'light' });
    await created.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseUrl });
    contexts.push(created);
    return created;
  };
  const page = async (within?: BrowserContext) => {
    const created = await (within ?? (await context())).newPage();
    created.on('console', (message) => {
      // Chromium logs every non-2xx answer; 4xx answers (401 signed out, 400 a wrong code, …) and
      // 503 (the GitHub App not configured) are answers the app handles and shows, not faults.
      if (message.type() === 'error' && !EXPECTED_STATUS.test(message.text())) errors.push(`console: ${message.text()}`);
    });
    created.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
    return created;
  };

  return {
    ...world,
    baseUrl,
    browser,
    context,
    page,
    errors,
    close: async () => {
      for (const created of contexts) await created.close().catch(() => undefined);
      await browser.close();
      await world.close();
    },
  };
}

/** A page in a new browser profile that holds this session cookie (`name=value`). */
export async function signedInPage(world: BrowserWorld, cookie: string): Promise<Page> {
  const context = await world.context();
  const [name, value] = cookie.split('=') as [string, string];
  await context.addCookies([{ name, value, url: world.baseUrl }]);
  return world.page(context);
}

/** No serious or critical accessibility violation on the page as it is now. */
export async function expectAccessible(page: Page, label: string): Promise<void> {
  const results = await new AxeBuilder({ page }).analyze();
  const serious = results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id} (${violation.impact}): ${violation.help} — ${violation.nodes.map((node) => node.target.join(' ')).slice(0, 3).join(', ')}`);
  expect(serious, `accessibility of ${label}`).toEqual([]);
}

/** Exactly one h1, with this text. */
export async function expectHeading(page: Page, name: string | RegExp): Promise<void> {
  await page.getByRole('heading', { level: 1, name }).waitFor();
  expect(await page.locator('h1').count()).toBe(1);
}
