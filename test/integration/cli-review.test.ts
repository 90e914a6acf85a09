import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../helpers/accounts.js';
import { createToken } from '../helpers/api-tokens.js';
import { BIN, git, runCli, write } from '../helpers/cli.js';
import { execFile } from 'node:child_process';
import { PRICE_FINDING } from '../helpers/diff-reviews.js';
import { createGitFixture } from '../helpers/git-fixture.js';
import { freePort } from '../helpers/net.js';
import { scriptedReviewer } from '../helpers/review-fixtures.js';
import { reviewWorld, type ReviewWorld } from '../helpers/review-world.js';

const PRICE = "import { taxOf } from './tax';\n\nexport function total(net: number): number {\n  return net + taxOf(net);\n}\n";
const PRICE_CHANGED = PRICE.replace('net + taxOf', 'net - taxOf');
const TAX = 'export function taxOf(net: number): number {\n  // VAT_RATE_MARKER\n  return net * 0.2;\n}\n';

/** The real `bin/ai-review.js` in temporary git repositories against the service and the fake model (decisions.md §17). */
describe('ai-review review', () => {
  let world: ReviewWorld;
  let env: Record<string, string>;
  const dirs: string[] = [];
  beforeAll(async () => {
    world = await reviewWorld();
    world.model.reply(scriptedReviewer([PRICE_FINDING, { file: 'src/notes.ts', line: 1, severity: 'MINOR', confidence: 80, title: 'A note' }]));
    const port = await freePort();
    await world.t.app.listen({ port, host: '127.0.0.1' });
    const account = await createAccount(world.t.app, world.t.outbox);
    const config = await mkdtemp(join(tmpdir(), 'ai-review-config-'));
    dirs.push(config);
    env = { AI_REVIEW_URL: `http://127.0.0.1:${port}`, AI_REVIEW_TOKEN: (await createToken(world.t.app, account.cookie)).token, XDG_CONFIG_HOME: config };
  });
  afterAll(async () => {
    await world?.close();
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  const repository = () => {
    const { dir } = createGitFixture([{ 'src/price.ts': PRICE, 'src/tax.ts': TAX, 'src/notes.ts': 'export const note = 1;\n' }]);
    dirs.push(dir);
    return dir;
  };
  const lastPrompt = () => JSON.stringify(world.model.completions().at(-1)!.body.messages);

  it('json: the review object alone on stdout, progress on stderr; the work tree against HEAD, with the imported file sent', async () => {
    const dir = repository();
    write(dir, 'src/price.ts', PRICE_CHANGED);
    const run = await runCli(['review', '--format', 'json'], { cwd: dir, env });
    expect(run.code, run.stderr).toBe(0);
    const review = JSON.parse(run.stdout) as { score: number; reviewRawJSON: { comments: Array<{ file: string; line: number; severity: string }> }; coverage: unknown };
    expect(review.reviewRawJSON.comments).toEqual([expect.objectContaining({ file: 'src/price.ts', line: 4, severity: 'MAJOR' })]);
    expect(review).toMatchObject({ score: 80, skippedFiles: [], configProblems: [], coverage: { files: 1 } });
    expect(run.stderr).toContain('Reviewing the work tree against HEAD');
    expect(run.stderr).toContain('Reviewed 1 of 1 chunk');
    expect(lastPrompt()).toContain('VAT_RATE_MARKER');
  });

  it('text, markdown and sarif, each parsed; colour only when asked for by a terminal', async () => {
    const dir = repository();
    write(dir, 'src/price.ts', PRICE_CHANGED);
    const text = await runCli(['review'], { cwd: dir, env });
    expect(text.code, text.stderr).toBe(0);
    const lines = text.stdout.split('\n');
    expect(lines[0]).toBe(`src/price.ts:4 MAJOR ${PRICE_FINDING.title}`);
    expect(lines[1]).toMatch(/^ {4}Scenario: /);
    expect(lines[2]).toMatch(/^ {4}Fix: /);
    expect(text.stdout).toContain('1 finding (1 major) · score 80/100');
    expect(text.stdout).not.toContain('\x1b[');

    const markdown = await runCli(['review', '--format', 'markdown'], { cwd: dir, env });
    expect(markdown.code).toBe(0);
    expect(markdown.stdout).toContain('## AI review');
    expect(markdown.stdout).toContain('**Score:** 80/100');
    expect(markdown.stdout).toContain(`\`src/price.ts:4\` ${PRICE_FINDING.title}`);

    const sarif = await runCli(['review', '--format', 'sarif'], { cwd: dir, env });
    expect(sarif.code).toBe(0);
    const log = JSON.parse(sarif.stdout) as { version: string; runs: Array<{ tool: { driver: { name: string; rules: Array<{ id: string }> } }; results: Array<Record<string, unknown>> }> };
    expect(log.version).toBe('2.1.0');
    expect(log.runs).toHaveLength(1);
    expect(log.runs[0]!.tool.driver).toMatchObject({ name: 'ai-review', rules: [{ id: 'ai-review/major' }] });
    expect(log.runs[0]!.results).toEqual([
      {
        ruleId: 'ai-review/major',
        level: 'error',
        message: { text: expect.stringContaining(PRICE_FINDING.title) },
        locations: [{ physicalLocation: { artifactLocation: { uri: 'src/price.ts', uriBaseId: '%SRCROOT%' }, region: { startLine: 4, endLine: 4 } } }],
        partialFingerprints: { 'aiReviewFindingId/v1': expect.any(String) },
      },
    ]);
  });

  it('on a terminal: a progress bar and colours, and no colours with NO_COLOR', async () => {
    const dir = repository();
    write(dir, 'src/price.ts', PRICE_CHANGED);
    // util-linux's script gives the command a terminal (stdout and stderr both, merged).
    const onTerminal = (extra: Record<string, string>) =>
      new Promise<string>((resolve, reject) => {
        const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'NO_COLOR' && name !== 'FORCE_COLOR'));
        execFile('script', ['-qec', `${process.execPath} ${BIN} review`, '/dev/null'], { cwd: dir, env: { ...clean, ...env, ...extra } }, (error, stdout) => (error ? reject(new Error(error.message)) : resolve(stdout)));
      });
    // An SGR sequence (colour, bold): ESC [ … m.
    const SGR = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`);
    const coloured = await onTerminal({});
    expect(coloured).toMatch(/\r\[#+-*\] 1\/1 chunks/);
    expect(coloured).toMatch(SGR);
    expect(coloured).toContain(PRICE_FINDING.title);
    const plain = await onTerminal({ NO_COLOR: '1' });
    expect(plain).toContain(PRICE_FINDING.title);
    expect(plain).not.toMatch(SGR);
  });

  it('--fail-on: exit 1 at or above the severity, 0 below it', async () => {
    const dir = repository();
    write(dir, 'src/price.ts', PRICE_CHANGED);
    expect((await runCli(['review', '--fail-on', 'major', '--format', 'json'], { cwd: dir, env })).code).toBe(1);
    expect((await runCli(['review', '--fail-on', 'minor', '--format', 'json'], { cwd: dir, env })).code).toBe(1);
    expect((await runCli(['review', '--fail-on', 'critical', '--format', 'json'], { cwd: dir, env })).code).toBe(0);
  });

  it('--staged reviews the index alone; --base the work tree against the merge base', async () => {
    const dir = repository();
    write(dir, 'src/price.ts', PRICE_CHANGED);
    git(dir, 'add', 'src/price.ts');
    write(dir, 'src/notes.ts', 'export const note = 2;\n');
    const staged = await runCli(['review', '--staged', '--format', 'json'], { cwd: dir, env });
    expect(staged.code, staged.stderr).toBe(0);
    expect(lastPrompt()).toContain('## src/price.ts (modified)');
    expect(lastPrompt()).not.toContain('src/notes.ts (modified)');

    git(dir, 'commit', '--quiet', '-m', 'subtract');
    git(dir, 'checkout', '--quiet', '-b', 'feature', 'HEAD~0');
    git(dir, 'branch', '--quiet', '-f', 'main', 'HEAD~1');
    const based = await runCli(['review', '--base', 'main', '--format', 'json'], { cwd: dir, env });
    expect(based.code, based.stderr).toBe(0);
    expect(lastPrompt()).toContain('## src/price.ts (modified)');
    expect(lastPrompt()).toContain('## src/notes.ts (modified)');
    expect(based.stderr).toContain('against main');

    const range = await runCli(['review', 'main..feature', '--format', 'json'], { cwd: dir, env });
    expect(range.code, range.stderr).toBe(0);
    expect(lastPrompt()).toContain('## src/price.ts (modified)');
    expect(lastPrompt()).not.toContain('src/notes.ts (modified)');
  });

  it('with nothing uncommitted, the branch against the merge base with the remote’s default branch', async () => {
    const dir = repository();
    git(dir, 'remote', 'add', 'origin', 'git@example.com:acme/shop.git');
    git(dir, 'update-ref', 'refs/remotes/origin/main', 'HEAD');
    git(dir, 'symbolic-ref', 'refs/remotes/origin/HEAD', 'refs/remotes/origin/main');
    git(dir, 'checkout', '--quiet', '-b', 'feature');
    write(dir, 'src/price.ts', PRICE_CHANGED);
    git(dir, 'commit', '--quiet', '-am', 'subtract');
    const run = await runCli(['review', '--format', 'json'], { cwd: dir, env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('the branch against origin/main');
    expect(lastPrompt()).toContain('-  return net + taxOf(net);');
    // The repository's name came from the remote: its learnings apply.
    const list = await world.t.app.inject({ method: 'GET', url: '/review/diff', headers: { authorization: `Bearer ${env.AI_REVIEW_TOKEN}` } });
    expect(list.json<{ items: Array<{ repository: string | null }> }>().items[0]!.repository).toBe('acme/shop');
  });
});
