import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ACCESS, FakeGitLab, type FakeDiffEntry } from '../fakes/fake-gitlab.js';
import { createAccount, type Account } from '../helpers/accounts.js';
import { settledReview } from '../helpers/review-fixtures.js';
import { browserWorld, expectAccessible, expectHeading, SCREENSHOT_DIR, signedInPage, type BrowserWorld } from './browser-world.js';

const SHA = '7'.repeat(40);
const BASE = 'a'.repeat(40);
/** The sample diff's src/math.ts (an off-by-one on new line 3), as GitLab's diffs API gives it. */
const MATH: FakeDiffEntry = {
  old_path: 'src/math.ts',
  new_path: 'src/math.ts',
  a_mode: '100644',
  b_mode: '100644',
  diff: '@@ -1,5 +1,9 @@\n export function average(values: number[]): number {\n-  return values.reduce((a, b) => a + b, 0) / values.length;\n+  let total = 0;\n+  for (let i = 0; i <= values.length; i++) {\n+    total += values[i];\n+  }\n+  return total / values.length;\n }\n \n export function clamp(value: number, min: number, max: number): number {\n',
  new_file: false,
  renamed_file: false,
  deleted_file: false,
};

/** A merge request's review in the browser (decisions.md §12): listed with its host, its page linked. */
describe('a GitLab merge request in the browser', () => {
  let world: BrowserWorld;
  let gitlab: FakeGitLab;
  let account: Account;
  let page: Page;

  beforeAll(async () => {
    gitlab = await new FakeGitLab().start();
    world = await browserWorld();
    account = await createAccount(world.t.app, world.t.outbox);
    page = await signedInPage(world, account.cookie);
  }, 60_000);
  afterAll(async () => {
    await world?.close();
    await gitlab?.stop();
  });
  afterEach(() => {
    expect(world.errors.splice(0), 'console errors').toEqual([]);
  });

  it('lists the merge request as GitLab !3 and opens its review, with its findings and a link to GitLab', async () => {
    const bot = { id: 61, username: 'reviewer-bot', name: 'Bot' };
    const project = gitlab.addProject('acme/platform/api');
    gitlab.addMember(project.id, bot, ACCESS.maintainer);
    const connected = await world.t.app.inject({ method: 'POST', url: '/gitlab/connections', headers: { cookie: account.cookie }, payload: { baseUrl: gitlab.url, project: project.id, token: gitlab.issueToken(bot) } });
    expect(connected.statusCode, connected.body).toBe(201);
    gitlab.openMergeRequest(project.id, 3, { author: { id: 62, username: 'dev', name: 'Dev' }, diffRefs: { base_sha: BASE, start_sha: BASE, head_sha: SHA }, diffs: [MATH] });
    const hook = JSON.parse(readFileSync(new URL('../fixtures/gitlab/merge-request-hook.json', import.meta.url), 'utf8')) as { project: object; object_attributes: object };
    hook.project = { ...hook.project, id: project.id, path_with_namespace: project.path, web_url: `${gitlab.url}/${project.path}` };
    const url = `${gitlab.url}/${project.path}/-/merge_requests/3`;
    hook.object_attributes = { ...hook.object_attributes, iid: 3, action: 'open', title: 'Loop over the values', url, last_commit: { id: SHA } };
    const delivered = await world.t.app.inject({ method: 'POST', url: '/webhook/gitlab', headers: { 'content-type': 'application/json', 'x-gitlab-event': 'Merge Request Hook', 'x-gitlab-token': project.hooks[0]!.token! }, payload: JSON.stringify(hook) });
    expect(delivered.statusCode).toBe(200);
    const prId = (await world.t.app.inject({ method: 'GET', url: '/pull-request/list', headers: { cookie: account.cookie } })).json<Array<{ prId: string }>>()[0]!.prId;
    await settledReview(world.t.app, account.cookie, prId);

    await page.goto('/pulls');
    await expectHeading(page, 'Pull requests');
    const row = page.getByRole('listitem').filter({ hasText: 'Loop over the values' });
    await row.getByText('acme/platform/api !3').waitFor();
    await row.getByText('GitLab', { exact: true }).waitFor();
    expect(await row.getByRole('link', { name: 'Open on GitLab' }).getAttribute('href')).toBe(url);
    await expectAccessible(page, '/pulls with a merge request');
    await page.screenshot({ path: `${SCREENSHOT_DIR}gitlab-list.png` });

    await row.getByRole('link', { name: 'Loop over the values' }).click();
    await page.waitForURL(new RegExp(`/pulls/${prId}$`));
    await expectHeading(page, 'Loop over the values');
    await page.getByRole('article', { name: /CRITICAL Off-by-one/ }).first().waitFor();
    await page.getByText('acme/platform/api', { exact: false }).first().waitFor();
    expect(await page.getByRole('link', { name: 'Open on GitLab' }).getAttribute('href')).toBe(url);
    await expectAccessible(page, 'a merge request’s review');
    await page.screenshot({ path: `${SCREENSHOT_DIR}gitlab-review.png` });
  });
});
