import { execFileSync } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatRequest } from '../fakes/fake-openai-chat.js';
import { createGitFixture } from '../helpers/git-fixture.js';
import { signInWithGitHub } from '../helpers/github-login.js';
import { scriptedReviewer, settledReview } from '../helpers/review-fixtures.js';
import { deliverPullRequest } from '../helpers/review-world.js';
import { browserWorld, expectAccessible, expectHeading, signedInPage, SCREENSHOT_DIR, type BrowserWorld } from './browser-world.js';

/** A deep review of a real diff: the change in `cart.py` calls `tax_for` from `pricing.py`. */
const BEFORE = {
  '.ai-review.yml': 'reviews:\n  mode: deep\n',
  'shop/__init__.py': '',
  'shop/pricing.py': 'RATES = {"eu": 0.2, "us": 0.07}\n\n\ndef tax_for(region, amount):\n    """The tax due on an amount in a region."""\n    return amount * RATES[region]\n',
  'shop/cart.py': 'from .pricing import tax_for\n\n\ndef total(items, region):\n    subtotal = sum(items)\n    return subtotal\n',
};
const AFTER = { 'shop/cart.py': BEFORE['shop/cart.py'].replace('    return subtotal\n', '    return subtotal + tax_for(region, subtotal)\n') };

describe('the review page shows what the reviewer read (decisions.md §11)', () => {
  let world: BrowserWorld;
  let fixtureDir: string;
  beforeAll(async () => {
    world = await browserWorld();
    await mkdir(SCREENSHOT_DIR, { recursive: true });
  }, 60_000);
  afterAll(async () => {
    await world?.close();
    if (fixtureDir) rmSync(fixtureDir, { recursive: true, force: true });
  });

  it('a collapsed section lists the scopes, definitions and tool calls of the review, and is accessible', async () => {
    const author = await signInWithGitHub(world.t.app, world.github);
    const fixture = createGitFixture([BEFORE, AFTER]);
    fixtureDir = fixture.dir;
    const repository = { id: 9_400, full_name: 'shop/read-context' };
    world.github.code.serveRepository(repository.full_name, fixture.dir);
    const [base, head] = fixture.shas as [string, string];
    const diff = execFileSync('git', ['diff', base, head], { cwd: fixture.dir, encoding: 'utf8' });
    // Deep mode's first step reads two files (one refused), then the model answers with no findings.
    const answer = scriptedReviewer([])({ body: { messages: [] } } as unknown as ChatRequest);
    world.model.enqueue({ toolCalls: [{ name: 'read_file', arguments: { path: 'shop/pricing.py', startLine: 1, endLine: 6 } }, { name: 'read_file', arguments: { path: '../secrets.txt' } }] }, answer);
    const payload = await deliverPullRequest(world, author, diff, { repository, headSha: head, baseSha: base, title: 'Charge tax on the total' });
    const review = await settledReview(world.t.app, author.cookie, payload.pull_request.id);
    expect(review).toMatchObject({ reviewStatus: 'completed', mode: 'deep', context: { scopes: 1, definitions: 1, toolCalls: 2, snapshot: 'tarball' } });

    const page = await signedInPage(world, author.cookie);
    await page.goto(`/pulls/${payload.pull_request.id}`);
    await expectHeading(page, 'Charge tax on the total');
    const summary = page.getByText('What the reviewer read');
    await summary.waitFor();
    // Collapsed until asked for.
    const section = page.locator('details.review-context');
    expect(await section.getAttribute('open')).toBeNull();
    await expect.poll(() => page.getByText('shop/cart.py:4-6').isVisible()).toBe(false);
    await summary.click();
    await page.getByText('shop/cart.py:4-6').waitFor();
    await page.getByText('enclosing function total').waitFor();
    await page.getByText('shop/pricing.py:4-6').waitFor();
    await page.getByText('definition of tax_for').waitFor();
    await page.getByText(/1 scope · 1 definition · 2 tool calls/).waitFor();
    const calls = page.getByRole('list', { name: 'Tool calls of part 1' }).getByRole('listitem');
    expect(await calls.allInnerTexts()).toEqual([expect.stringMatching(/^read_file\(path: "shop\/pricing\.py", startLine: 1, endLine: 6\) \d+ tokens$/), 'read_file(path: "../secrets.txt") not answered (refused: give a path relative to the repository root, without "..")']);
    await expectAccessible(page, '/pulls/:prId with what the reviewer read');
    await section.scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SCREENSHOT_DIR}review-context.png`, fullPage: false });
    expect(world.errors.splice(0), 'console errors').toEqual([]);
  });
});
