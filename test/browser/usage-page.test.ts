import { mkdir, readFile } from 'node:fs/promises';
import { sql } from 'drizzle-orm';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, type Account } from '../helpers/accounts.js';
import { browserWorld, expectAccessible, expectHeading, signedInPage, SCREENSHOT_DIR, type BrowserWorld } from './browser-world.js';

const DAY_MS = 86_400_000;
const dayText = (time: number) => new Date(time).toISOString().slice(0, 10);

/** decisions.md §14's page: the range, the charts with their tables, the CSV. */
describe('the usage page in the browser', () => {
  let world: BrowserWorld;
  let account: Account;
  let page: Page;
  const today = dayText(Date.now());

  beforeAll(async () => {
    world = await browserWorld();
    await mkdir(SCREENSHOT_DIR, { recursive: true });
    account = await createAccount(world.t.app, world.t.outbox);
    // A month of calls on three models, as the meter writes them (records and their daily rollup), and twelve review runs.
    await world.t.app.db.execute(sql`
      insert into usage_records (user_id, at, kind, model_id, source, input_tokens, output_tokens, cost_usd, repository_name, duration_ms)
      select ${account.id}, date_trunc('day', now()) - d * interval '1 day' + m * interval '1 hour',
        (array['review', 'verification', 'chat'])[m + 1], (array['gpt-4.1', 'claude-sonnet-4', 'gemini-2.5-pro'])[m + 1],
        case when m = 2 then 'openrouter' else 'platform' end,
        4000 + ((d * 37 + m * 11) % 20) * 400, 600 + ((d * 13 + m * 7) % 10) * 90,
        (0.01 + ((d * 17 + m * 5) % 9) * 0.004) * (m + 1), 'octo/shop', 1500 + m * 800
      from generate_series(0, 27) as d, generate_series(0, 2) as m
      where (d + m) % 4 <> 0`);
    await world.t.app.db.execute(sql`
      insert into usage_daily (user_id, day, kind, model_id, source, repository_name, generations, input_tokens, output_tokens, cost_usd)
      select user_id, (at at time zone 'UTC')::date, kind, model_id, source, repository_name, count(*), sum(input_tokens), sum(output_tokens), sum(cost_usd)
      from usage_records where user_id = ${account.id} group by 1, 2, 3, 4, 5, 6`);
    await world.t.app.db.execute(sql`
      insert into review_runs (run_id, user_id, mode, status, started_at, completed_at, duration_ms)
      select gen_random_uuid(), ${account.id}, (array['quick', 'focused', 'deep'])[n % 3 + 1], case when n = 7 then 'failed' else 'completed' end,
        now() - n * interval '2 days' - (20 + n * 9) * interval '1 second', now() - n * interval '2 days', (20 + n * 9) * 1000
      from generate_series(0, 11) as n`);

    page = await signedInPage(world, account.cookie);
  }, 60_000);
  afterAll(() => world?.close());
  afterEach(() => {
    expect(world.errors.splice(0), 'console errors').toEqual([]);
  });

  it('is reached from the navigation and shows the last 30 days, each chart with its table', async () => {
    await page.goto('/');
    await page.getByRole('navigation').getByRole('link', { name: 'Usage' }).click();
    await page.waitForURL(/\/usage$/);
    await expectHeading(page, 'Usage');
    expect(await page.getByLabel('From').inputValue()).toBe(dayText(Date.now() - 29 * DAY_MS));
    expect(await page.getByLabel('To').inputValue()).toBe(today);

    for (const title of ['Spend per day by model', 'Tokens per day', 'Reviews by mode', 'Review durations']) {
      await page.getByRole('heading', { name: title }).waitFor();
    }
    // The tables are there for screen readers, hidden from sight until asked for.
    const spend = page.getByRole('table', { name: 'Spend per day by model' });
    const columns = await spend.getByRole('columnheader').allTextContents();
    expect(columns[0]).toBe('Day');
    expect(columns.slice(1).sort()).toEqual(['claude-sonnet-4', 'gemini-2.5-pro', 'gpt-4.1']);
    expect(await spend.getByRole('row').count()).toBe(31);
    expect(await page.getByRole('table', { name: 'Review durations' }).getByRole('row').count()).toBe(4);
    expect(await page.getByRole('table', { name: 'Reviews by mode' }).getByRole('cell').allTextContents()).toEqual(['4', '4', '4']);
    await page.getByRole('button', { name: 'Show table' }).first().click();
    await expect.poll(() => spend.isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Hide table' }).click();

    await expectAccessible(page, '/usage');
    await page.screenshot({ path: `${SCREENSHOT_DIR}usage.png`, fullPage: true });
  });

  it('narrows the range through From and To, and downloads the CSV of that range', async () => {
    const from = dayText(Date.now() - 6 * DAY_MS);
    await page.getByLabel('From').fill(from);
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL((url) => url.searchParams.get('from') === from);
    // The page's address is also the API's (GET /usage): a reload gets the page, with its range.
    await page.reload();
    await expectHeading(page, 'Usage');
    expect(await page.getByLabel('From').inputValue()).toBe(from);
    await expect.poll(() => page.getByRole('table', { name: 'Tokens per day' }).getByRole('row').count()).toBe(8);

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
    expect(download.suggestedFilename()).toBe(`usage-${from}-to-${today}.csv`);
    const csv = await readFile(await download.path(), 'utf8');
    const lines = csv.trimEnd().split('\r\n');
    expect(lines[0]).toBe('at,kind,modelId,source,inputTokens,outputTokens,costUsd,repositoryName,pullRequestId,durationMs');
    expect(lines.length).toBeGreaterThan(10);
    expect(lines.slice(1).every((line) => line.slice(0, 10) >= from)).toBe(true);
  });
});
