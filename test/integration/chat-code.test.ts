import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatRequest } from '../fakes/fake-openai-chat.js';
import { createGitFixture } from '../helpers/git-fixture.js';
import { signInWithGitHub, type GitHubSignIn } from '../helpers/github-login.js';
import { scriptedReviewer, settledReview } from '../helpers/review-fixtures.js';
import { deliverPullRequest, reviewWorld, type ReviewWorld } from '../helpers/review-world.js';

/** The change in `cart.py` calls `tax_for`, defined in `pricing.py`. */
const BEFORE = {
  'shop/__init__.py': '',
  'shop/pricing.py': 'RATES = {"eu": 0.2, "us": 0.07}\n\n\ndef tax_for(region, amount):\n    """The tax due on an amount in a region."""\n    return amount * RATES[region]\n',
  'shop/cart.py': 'from .pricing import tax_for\n\n\ndef total(items, region):\n    subtotal = sum(items)\n    return subtotal\n',
};
const AFTER = { 'shop/cart.py': BEFORE['shop/cart.py'].replace('    return subtotal\n', '    return subtotal + tax_for(region, subtotal)\n') };

const toolAnswers = (request: ChatRequest) => request.body.messages.filter((message) => message.role === 'tool').map((message) => String(message.content));
const isTitleRequest = (request: ChatRequest) => JSON.stringify(request.body.messages).includes('Write a short title');

describe("the chat reads a pull request's code at its head commit (decisions.md §11)", () => {
  let world: ReviewWorld;
  let author: GitHubSignIn;
  let prId: number;
  let fixtureDir: string;

  beforeAll(async () => {
    world = await reviewWorld();
    world.model.reply(scriptedReviewer([]));
    author = await signInWithGitHub(world.t.app, world.github);
    const fixture = createGitFixture([BEFORE, AFTER]);
    fixtureDir = fixture.dir;
    const repository = { id: 9_300, full_name: 'shop/chat-code' };
    world.github.code.serveRepository(repository.full_name, fixture.dir);
    const [base, head] = fixture.shas as [string, string];
    const diff = execFileSync('git', ['diff', base, head], { cwd: fixture.dir, encoding: 'utf8' });
    const payload = await deliverPullRequest(world, author, diff, { repository, headSha: head, baseSha: base });
    prId = payload.pull_request.id;
  });
  afterAll(async () => {
    await world.close();
    rmSync(fixtureDir, { recursive: true, force: true });
  });

  /** One chat exchange whose first model step makes `calls`; returns the tool answers the model got back. */
  async function chatWithCalls(cookie: string, calls: Array<{ name: string; arguments: Record<string, unknown> }>, connected = true) {
    const before = world.model.completions().length;
    world.model.enqueue({ toolCalls: calls.map((call, index) => ({ id: `call_${index}`, ...call })) }, { text: 'Read it.' });
    const payload = { message: 'Is the tax right?', ...(connected ? { prId: String(prId) } : {}) };
    const response = await world.t.app.inject({ method: 'POST', url: '/conversation/chat', headers: { cookie }, payload });
    expect(response.statusCode, response.body).toBe(200);
    const requests = world.model.completions().slice(before).filter((request) => !isTitleRequest(request));
    expect(requests.map((request) => request.body.tools?.map((tool) => tool.function.name).sort())[0]).toEqual(['find_definition', 'getDiff', 'getPRList', 'read_file', 'search']);
    return toolAnswers(requests[1]!).map((answer) => JSON.parse(answer) as { text?: string; error?: string; commit?: string });
  }

  it('read_file, find_definition and search answer from the snapshot the review built, without fetching it again', async () => {
    // Reviewed first: the review's snapshot of the head commit is the one the chat then reads.
    expect(await settledReview(world.t.app, author.cookie, prId)).toMatchObject({ reviewStatus: 'completed', context: { snapshot: 'tarball' } });
    const tarballs = () => world.github.requests.filter((request) => request.path.includes('/tarball/')).length;
    const fetched = tarballs();
    const [read, definition, found, outside] = await chatWithCalls(author.cookie, [
      { name: 'read_file', arguments: { prId, path: 'shop/cart.py', startLine: 4, endLine: 6 } },
      { name: 'find_definition', arguments: { prId, symbol: 'tax_for' } },
      { name: 'search', arguments: { prId: String(prId), text: 'RATES', pathGlob: 'shop/**' } },
      { name: 'read_file', arguments: { prId, path: '../../etc/passwd' } },
    ]);
    expect(read!.text).toContain('shop/cart.py lines 4-6 of 6');
    expect(read!.text).toContain('    return subtotal + tax_for(region, subtotal)');
    expect(read!.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(definition!.text).toContain('shop/pricing.py lines 4-6');
    expect(definition!.text).toContain('def tax_for(region, amount):');
    expect(found!.text).toContain('shop/pricing.py:1: RATES = {');
    expect(outside!.error).toContain('refused');
    expect(tarballs()).toBe(fetched);
  });

  it("another user's pull request is never read: not found, as through the API", async () => {
    const stranger = await signInWithGitHub(world.t.app, world.github);
    const requests = () => world.github.requests.length;
    const before = requests();
    const connect = await world.t.app.inject({ method: 'POST', url: '/conversation/chat', headers: { cookie: stranger.cookie }, payload: { message: 'Hi', prId: String(prId) } });
    expect(connect.statusCode).toBe(404);
    const answers = await chatWithCalls(
      stranger.cookie,
      [
        { name: 'read_file', arguments: { prId, path: 'shop/cart.py' } },
        { name: 'find_definition', arguments: { prId, symbol: 'tax_for' } },
        { name: 'search', arguments: { prId, text: 'RATES' } },
      ],
      false,
    );
    expect(answers).toEqual(Array.from({ length: 3 }, () => ({ error: 'No pull request with that id among yours' })));
    // Refused before any code host call.
    expect(requests()).toBe(before);
  });
});
