import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { pack } from 'tar-stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countTokens } from '../../src/review/prepare/tokens.js';
import type { ChatRequest } from '../fakes/fake-openai-chat.js';
import { createGitFixture } from '../helpers/git-fixture.js';
import { manyScopesCommits } from '../helpers/many-scopes-fixture.js';
import { signInWithGitHub, type GitHubSignIn } from '../helpers/github-login.js';
import { scriptedReviewer, settledReview } from '../helpers/review-fixtures.js';
import { deliverPullRequest, reviewWorld, type ReviewWorld } from '../helpers/review-world.js';

const TINY_CONTEXT = 11_000;
const PLATFORM_MODELS = [
  { id: 'platform-a', name: 'Platform A', contextLength: 32_000, inputPrice: 1, outputPrice: 2 },
  { id: 'platform-tiny', name: 'Platform Tiny', contextLength: TINY_CONTEXT, inputPrice: 1, outputPrice: 2 },
];

/** A small shop in Python: the change in `cart.py` calls `tax_for` from `pricing.py`. */
const BEFORE = {
  'shop/__init__.py': '',
  'shop/pricing.py':
    'RATES = {"eu": 0.2, "us": 0.07}\n\n\ndef tax_for(region, amount):\n    """The tax due on an amount in a region; KeyError for an unknown region."""\n    return amount * RATES[region]\n',
  'shop/cart.py': [
    'from .pricing import tax_for',
    '',
    '',
    'class Cart:',
    '    def __init__(self, region):',
    '        self.region = region',
    '        self.items = []',
    '',
    '    def add(self, item):',
    '        self.items.append(item)',
    '',
    '    def total(self):',
    '        """What the customer pays."""',
    '        if not self.items:',
    '            return 0',
    '        subtotal = sum(item.price for item in self.items)',
    '        return subtotal',
    '',
  ].join('\n'),
};
const AFTER = { 'shop/cart.py': BEFORE['shop/cart.py'].replace('        return subtotal\n', '        return subtotal + tax_for(self.region, subtotal)\n') };

const userText = (request: ChatRequest) => JSON.stringify(request.body.messages.filter((message) => message.role === 'user').map((message) => message.content));

describe('the code around the change in the prompt (decisions.md §11)', () => {
  let world: ReviewWorld;
  let author: GitHubSignIn;
  const fixtures: string[] = [];
  let repositoryId = 9_100;

  /** A repository of its own served from a git fixture; returns a delivered pull request of its second commit. */
  async function pullRequest(commits: Array<Record<string, string | null>>, options: { serve?: boolean } = {}) {
    const fixture = createGitFixture(commits);
    fixtures.push(fixture.dir);
    const repository = { id: ++repositoryId, full_name: `shop/repo-${repositoryId}` };
    if (options.serve !== false) world.github.code.serveRepository(repository.full_name, fixture.dir);
    const [base, head] = [fixture.shas.at(-2)!, fixture.shas.at(-1)!];
    const diff = execFileSync('git', ['diff', base, head], { cwd: fixture.dir, encoding: 'utf8' });
    const before = world.model.completions().length;
    const payload = await deliverPullRequest(world, author, diff, { repository, headSha: head, baseSha: base });
    const review = await settledReview(world.t.app, author.cookie, payload.pull_request.id);
    return { review, calls: world.model.completions().slice(before), payload };
  }

  beforeAll(async () => {
    world = await reviewWorld({ PLATFORM_MODELS: JSON.stringify(PLATFORM_MODELS) });
    world.model.reply(scriptedReviewer([]));
    author = await signInWithGitHub(world.t.app, world.github);
  });
  afterAll(async () => {
    await world.close();
    for (const dir of fixtures) rmSync(dir, { recursive: true, force: true });
  });

  it('a real diff: the prompt holds the whole enclosing method and the called definition from another file, read from the tarball', async () => {
    const { review, calls } = await pullRequest([BEFORE, AFTER]);
    expect(review).toMatchObject({ reviewStatus: 'completed', failureReason: null });
    expect(calls).toHaveLength(1);
    const prompt = userText(calls[0]!);
    expect(prompt).toContain('about=\\"enclosing method Cart.total\\" read-only>');
    expect(prompt).toContain('12     def total(self):\\n13         \\"\\"\\"What the customer pays.\\"\\"\\"\\n14         if not self.items:');
    expect(prompt).toContain('path=\\"shop/pricing.py\\" lines=\\"4-6\\" about=\\"definition of tax_for\\" read-only>\\n4 def tax_for(region, amount):');
    // Context follows the diff and is marked as context.
    expect(prompt.indexOf('# Code around the change (read-only context)')).toBeGreaterThan(prompt.indexOf('</diff>'));
    expect(review.context).toEqual({ scopes: 1, definitions: 1, callers: 0, toolCalls: 0, tokens: expect.any(Number), snapshot: 'tarball' });
    expect((review.context as { tokens: number }).tokens).toBeGreaterThan(50);
    // Which blocks, for the review page.
    expect((review.reviewRawJSON as unknown as { contextBlocks: unknown[] }).contextBlocks).toEqual([
      { chunk: 0, kind: 'scope', path: 'shop/cart.py', startLine: 12, endLine: 17, about: 'enclosing method Cart.total', elided: false },
      { chunk: 0, kind: 'definition', path: 'shop/pricing.py', startLine: 4, endLine: 6, about: 'definition of tax_for', elided: false },
    ]);
    expect(world.github.requests.filter((request) => request.path.includes('/tarball/')).length).toBeGreaterThanOrEqual(1);
  });

  it('`.ai-review.yml` `reviews.context`: `scope` shows scopes only, `none` the diff alone without reading the repository', async () => {
    const scoped = await pullRequest([{ ...BEFORE, '.ai-review.yml': 'reviews:\n  context: scope\n' }, AFTER]);
    expect(scoped.review.context).toMatchObject({ scopes: 1, definitions: 0, snapshot: 'tarball' });
    expect(userText(scoped.calls[0]!)).not.toContain('definition of tax_for');

    const tarballsBefore = world.github.requests.filter((request) => request.path.includes('/tarball/')).length;
    const none = await pullRequest([{ ...BEFORE, '.ai-review.yml': 'reviews:\n  context: none\n' }, AFTER]);
    expect(none.review.context).toEqual({ scopes: 0, definitions: 0, callers: 0, toolCalls: 0, tokens: 0, snapshot: 'none' });
    expect(userText(none.calls[0]!)).not.toContain('# Code around the change');
    expect(world.github.requests.filter((request) => request.path.includes('/tarball/')).length).toBe(tarballsBefore);

    const wrong = await pullRequest([{ ...BEFORE, '.ai-review.yml': 'reviews:\n  context: everything\n' }, AFTER]);
    expect(wrong.review.configProblems).toEqual([{ line: 2, message: expect.stringContaining('reviews.context') }]);
    expect(wrong.review.context).toMatchObject({ definitions: 1 });
  });

  it('a hunk that only removes lines: its enclosing scope is read at the base commit, where the lines still are', async () => {
    // The pull request removes `clear` whole (a hunk of removals alone) and changes `total`.
    const withClear = { ...BEFORE, 'shop/cart.py': BEFORE['shop/cart.py'].replace('    def add(self, item):\n', '    def clear(self):\n        """Empties the cart."""\n        self.items = []\n\n    def add(self, item):\n') };
    const { review, calls } = await pullRequest([withClear, AFTER]);
    expect(review).toMatchObject({ reviewStatus: 'completed', failureReason: null });
    const prompt = userText(calls[0]!);
    expect(prompt).toMatch(/path=\\"shop\/cart.py\\" lines=\\"9-11\\" about=\\"enclosing method Cart.clear, at the base commit [0-9a-f]{12} \(before the change\)\\" read-only>\\n9 {5}def clear\(self\):/);
    // The head still shows where the removal leaves the code (Cart.add) and the changed method.
    expect((review.reviewRawJSON as unknown as { contextBlocks: Array<{ about: string }> }).contextBlocks.map((block) => block.about)).toEqual([
      'enclosing method Cart.add',
      'enclosing method Cart.total',
      expect.stringMatching(/^enclosing method Cart\.clear, at the base commit [0-9a-f]{12} \(before the change\)$/),
      'definition of tax_for',
    ]);
    expect(review.context).toMatchObject({ scopes: 3, definitions: 1 });
    // Only the one file was read at the base, through the contents API.
    expect(world.github.requests.filter((request) => request.path.includes('/contents/shop/cart.py'))).not.toHaveLength(0);
  });

  it('a repository the code host does not serve: the review completes with the diff alone and says so', async () => {
    const { review, calls } = await pullRequest([BEFORE, AFTER], { serve: false });
    expect(review).toMatchObject({ reviewStatus: 'completed', failureReason: null });
    expect(review.context).toMatchObject({ scopes: 0, snapshot: 'none' });
    expect(review.reviewRawJSON!.summary.overview).toContain("The repository's code could not be read");
    expect(userText(calls[0]!)).not.toContain('# Code around the change');
  });

  it("20 files whose functions overflow one chunk's room: the chunk is split before the model is called, each prompt holding its files' whole functions", async () => {
    const { review, calls } = await pullRequest(manyScopesCommits(20, 100));
    expect(review).toMatchObject({ reviewStatus: 'completed', failureReason: null });
    // One chunk of diff, split into a few parts (at most 12 calls, decisions.md §11).
    expect(calls.length).toBeGreaterThan(1);
    expect(calls.length).toBeLessThanOrEqual(12);
    const blocks = (review.reviewRawJSON as unknown as { contextBlocks: Array<{ chunk: number; kind: string; path: string; startLine: number; endLine: number; elided: boolean }> }).contextBlocks;
    const scopes = blocks.filter((block) => block.kind === 'scope');
    expect(scopes.map((block) => block.path).sort()).toEqual(Array.from({ length: 20 }, (_, file) => `lib/module-${file}.js`).sort());
    expect(scopes.every((block) => block.startLine === 3 && block.endLine === 102 && !block.elided)).toBe(true);
    expect(new Set(scopes.map((block) => block.chunk)).size).toBe(calls.length);
    for (const block of scopes) {
      const prompt = calls.map(userText).find((text) => text.includes(`## ${block.path} (modified)`))!;
      expect(prompt).toContain(`This is part ${block.chunk + 1} of ${calls.length}`);
      expect(prompt).toContain(`path=\\"${block.path}\\" lines=\\"3-102\\"`);
      expect(prompt).toContain('102 }\\n</context>');
    }
  }, 120_000);

  it('a model of a tiny context: every request stays within it, the context giving way first', async () => {
    await world.t.app.inject({ method: 'POST', url: '/workspace/aiSettings', headers: { cookie: author.cookie }, payload: { focusedModeModel: 'platform-tiny' } });
    try {
      const long = Array.from({ length: 400 }, (_, line) => `        subtotal += item.fees[${line}]  # fee ${line} of the catalogue`).join('\n');
      const big = { ...BEFORE, 'shop/cart.py': BEFORE['shop/cart.py'].replace('        return subtotal\n', `${long}\n        return subtotal\n`) };
      const changed = { 'shop/cart.py': big['shop/cart.py'].replace('        return subtotal\n', '        return subtotal + tax_for(self.region, subtotal)\n') };
      const { review, calls } = await pullRequest([big, changed]);
      expect(review).toMatchObject({ reviewStatus: 'completed', failureReason: null });
      for (const call of calls) {
        expect(call.body.model).toBe('platform-tiny');
        const tokens = call.body.messages.reduce((sum, message) => sum + countTokens(typeof message.content === 'string' ? message.content : JSON.stringify(message.content)), 0);
        // The focused mode's output reserve (8,000) on top of what was sent.
        expect(tokens + 8_000).toBeLessThanOrEqual(TINY_CONTEXT);
      }
      // The 420-line method did not fit whole: it is shown elided, around the change.
      expect(userText(calls[0]!)).toMatch(/… lines \d+-\d+ not shown …/);
    } finally {
      await world.t.app.inject({ method: 'POST', url: '/workspace/aiSettings', headers: { cookie: author.cookie }, payload: { focusedModeModel: 'platform-a' } });
    }
  });

  it('deep mode: the model reads more through the tools, at most 8 calls per chunk, paths outside refused, answers capped, calls recorded and metered', async () => {
    const huge = Array.from({ length: 5_000 }, (_, line) => `VALUE_${line} = "${'x'.repeat(60)}"`).join('\n');
    const deep = { ...BEFORE, '.ai-review.yml': 'reviews:\n  mode: deep\n', 'shop/huge.py': `${huge}\n` };
    const call = (name: string, args: Record<string, unknown>) => ({ name, arguments: args });
    world.model.enqueue(
      {
        toolCalls: [
          call('read_file', { path: '../../../etc/passwd' }),
          call('read_file', { path: '/etc/passwd' }),
          call('read_file', { path: 'shop/huge.py' }),
          call('find_definition', { symbol: 'tax_for' }),
          call('find_references', { symbol: 'tax_for' }),
          call('search', { text: 'RATES', pathGlob: 'shop/**' }),
        ],
      },
      { toolCalls: [call('read_file', { path: 'shop/pricing.py', startLine: 1, endLine: 2 }), call('search', { text: 'items' }), call('search', { text: 'price' }), call('read_file', { path: 'shop/cart.py' })] },
    );
    const generations = async () => (await world.t.app.inject({ method: 'GET', url: '/usage/history', headers: { cookie: author.cookie } })).json<{ total: { generations: number } }>().total.generations;
    const before = await generations();
    const { review, calls } = await pullRequest([deep, AFTER]);
    expect(review).toMatchObject({ reviewStatus: 'completed', failureReason: null, mode: 'deep' });
    // Each step of the tool loop is a generation, metered as any: two steps of calls, then the answer (no findings: no verification).
    expect(calls).toHaveLength(3);
    expect(await generations()).toBe(before + calls.length);
    const first = calls[0]!;
    expect(first.body.tools?.map((tool) => tool.function.name).sort()).toEqual(['find_definition', 'find_references', 'read_file', 'search']);
    const answers = (request: ChatRequest) => request.body.messages.filter((message) => message.role === 'tool').map((message) => String(message.content));
    const afterFirst = answers(calls[1]!);
    expect(afterFirst[0]).toContain('refused');
    expect(afterFirst[1]).toContain('refused');
    expect(afterFirst[2]).toContain('shop/huge.py lines 1-300 of 5000');
    expect(afterFirst[2]).toContain('[answer cut at 1000 tokens]');
    expect(countTokens(afterFirst[2]!)).toBeLessThanOrEqual(1_000);
    expect(afterFirst[3]).toContain('4 def tax_for(region, amount):');
    expect(afterFirst[4]).toContain('shop/cart.py:17:');
    expect(afterFirst[5]).toContain('shop/pricing.py:1: RATES = {');
    const afterSecond = answers(calls[2]!).slice(6);
    expect(afterSecond.slice(0, 2).every((answer) => !answer.startsWith('Refused'))).toBe(true);
    expect(afterSecond.slice(2)).toEqual([expect.stringContaining('Refused: the limit of 8 tool calls is reached'), expect.stringContaining('Refused: the limit of 8 tool calls is reached')]);
    expect(review.context).toMatchObject({ toolCalls: 10, snapshot: 'tarball' });
    const raw = review.reviewRawJSON as unknown as { toolCalls: Array<{ tool: string; refused?: string; tokens: number }> };
    expect(raw.toolCalls.map((record) => record.tool)).toEqual(['read_file', 'read_file', 'read_file', 'find_definition', 'find_references', 'search', 'read_file', 'search', 'search', 'read_file']);
    expect(raw.toolCalls.filter((record) => record.refused !== undefined)).toHaveLength(4);
  });

  it('deep mode with a model that refuses tools: asked again without them, with the code around the change', async () => {
    const deep = { ...BEFORE, '.ai-review.yml': 'reviews:\n  mode: deep\n' };
    world.model.enqueue({ status: 400, message: 'This model does not support tools' });
    const { review, calls } = await pullRequest([deep, AFTER]);
    expect(review).toMatchObject({ reviewStatus: 'completed', failureReason: null, mode: 'deep' });
    expect(calls[0]!.body.tools).toHaveLength(4);
    expect(calls[1]!.body.tools).toBeUndefined();
    expect(userText(calls[1]!)).toContain('definition of tax_for');
    expect(userText(calls[1]!)).not.toContain('# Reading more of the repository');
    expect(review.context).toMatchObject({ toolCalls: 0, definitions: 1 });
  });

  it('a hostile tarball (symlink, `../` entry, binary .py, 5 MB minified line) is contained and the review completes', async () => {
    const fixture = createGitFixture([BEFORE, AFTER]);
    fixtures.push(fixture.dir);
    const head = fixture.shas[1]!;
    const repository = { id: ++repositoryId, full_name: `shop/repo-${repositoryId}` };
    const top = `shop-repo-${head.slice(0, 7)}`;
    const archive = pack();
    for (const [path, content] of Object.entries({ ...BEFORE, ...AFTER })) archive.entry({ name: `${top}/${path}` }, content);
    archive.entry({ name: `${top}/../../../escaped.py` }, 'def escaped():\n    pass\n');
    archive.entry({ name: `${top}/shop/link.py`, type: 'symlink', linkname: '/etc/passwd' });
    archive.entry({ name: `${top}/shop/native.py` }, Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 0, 1]));
    archive.entry({ name: `${top}/shop/bundle.py` }, `x = ${'1+'.repeat(2_500_000)}1\n`);
    archive.finalize();
    const chunks: Buffer[] = [];
    for await (const chunk of archive) chunks.push(chunk as Buffer);
    world.github.code.serveRepository(repository.full_name, fixture.dir);
    world.github.code.setArchive(repository.full_name, head, gzipSync(Buffer.concat(chunks)));

    const diff = execFileSync('git', ['diff', fixture.shas[0]!, head], { cwd: fixture.dir, encoding: 'utf8' });
    const payload = await deliverPullRequest(world, author, diff, { repository, headSha: head, baseSha: fixture.shas[0]! });
    const review = await settledReview(world.t.app, author.cookie, payload.pull_request.id);
    expect(review).toMatchObject({ reviewStatus: 'completed', failureReason: null });
    expect(review.context).toMatchObject({ scopes: 1, definitions: 1, snapshot: 'tarball' });
    const snapshots = world.t.config.reviewSnapshot.dir;
    const dataDir = dirname(snapshots);
    const commitFolder = join(snapshots, new URL(world.github.url).host.replace(':', '_'), repository.full_name, head);
    // The files' bytes are in one pack: no path of the archive named a file on disk.
    expect(readdirSync(commitFolder).sort()).toEqual(['meta.json', 'tree.pack']);
    const kept = (JSON.parse(readFileSync(join(commitFolder, 'meta.json'), 'utf8')) as { files: Array<{ path: string }> }).files.map((file) => file.path);
    expect(kept.filter((path) => path.startsWith('shop/')).sort()).toEqual(['shop/__init__.py', 'shop/cart.py', 'shop/native.py', 'shop/pricing.py']);
    for (const outside of [join(snapshots, 'escaped.py'), join(dataDir, 'escaped.py'), join(dataDir, '..', 'escaped.py')]) expect(existsSync(outside)).toBe(false);
  });
});

describe('a repository over REVIEW_SNAPSHOT_MAX_BYTES', () => {
  let world: ReviewWorld;
  let fixture: ReturnType<typeof createGitFixture>;
  beforeAll(async () => {
    world = await reviewWorld({ PLATFORM_MODELS: JSON.stringify(PLATFORM_MODELS), REVIEW_SNAPSHOT_MAX_BYTES: '600' });
    world.model.reply(scriptedReviewer([]));
    fixture = createGitFixture([{ ...BEFORE, 'docs/big.txt': 'x'.repeat(5_000) }, AFTER]);
  });
  afterAll(async () => {
    await world.close();
    rmSync(fixture.dir, { recursive: true, force: true });
  });

  it('reads the changed files and what they import one by one, never the tarball, and still shows scope and definition', async () => {
    const author = await signInWithGitHub(world.t.app, world.github);
    world.github.code.serveRepository('shop/large', fixture.dir);
    const diff = execFileSync('git', ['diff', fixture.shas[0]!, fixture.shas[1]!], { cwd: fixture.dir, encoding: 'utf8' });
    const payload = await deliverPullRequest(world, author, diff, { repository: { id: 9_900, full_name: 'shop/large' }, headSha: fixture.shas[1]!, baseSha: fixture.shas[0]! });
    const review = await settledReview(world.t.app, author.cookie, payload.pull_request.id);
    expect(review).toMatchObject({ reviewStatus: 'completed', failureReason: null });
    expect(review.context).toMatchObject({ scopes: 1, definitions: 1, snapshot: 'files' });
    const paths = world.github.requests.map((request) => request.path);
    expect(paths.some((path) => path.includes('/tarball/'))).toBe(false);
    expect(paths).toContain('/repos/shop/large/contents/shop/pricing.py');
    expect(paths.some((path) => path.endsWith('/contents/docs/big.txt'))).toBe(false);
  });
});
