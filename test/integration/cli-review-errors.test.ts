import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../helpers/accounts.js';
import { createToken } from '../helpers/api-tokens.js';
import { runCli, write, type CliRun } from '../helpers/cli.js';
import { PRICE_FINDING } from '../helpers/diff-reviews.js';
import { createGitFixture } from '../helpers/git-fixture.js';
import { freePort } from '../helpers/net.js';
import { scriptedReviewer } from '../helpers/review-fixtures.js';
import { reviewWorld, type ReviewWorld } from '../helpers/review-world.js';

/** One line on stderr naming the cause and what to do, exit 2, nothing on stdout. */
const failedWith = (run: CliRun, cause: RegExp) => {
  expect(run.code, run.stderr).toBe(2);
  expect(run.stdout).toBe('');
  expect(run.stderr.trim().split('\n').at(-1)).toMatch(cause);
};

describe('ai-review review: failures exit 2 with one line', () => {
  let world: ReviewWorld;
  let env: Record<string, string>;
  let dir: string;
  const dirs: string[] = [];
  beforeAll(async () => {
    world = await reviewWorld();
    world.model.reply(scriptedReviewer([PRICE_FINDING]));
    const port = await freePort();
    await world.t.app.listen({ port, host: '127.0.0.1' });
    const account = await createAccount(world.t.app, world.t.outbox);
    const config = await mkdtemp(join(tmpdir(), 'ai-review-config-'));
    env = { AI_REVIEW_URL: `http://127.0.0.1:${port}`, AI_REVIEW_TOKEN: (await createToken(world.t.app, account.cookie)).token, XDG_CONFIG_HOME: config };
    dir = createGitFixture([{ 'src/price.ts': 'export const price = 1;\n' }]).dir;
    dirs.push(config, dir);
  });
  afterAll(async () => {
    await world?.close();
    await Promise.all(dirs.map((folder) => rm(folder, { recursive: true, force: true })));
  });

  it('an empty change, outside a repository, and usage errors', async () => {
    failedWith(await runCli(['review'], { cwd: dir, env }), /^ai-review: Nothing to review: the work tree against HEAD is empty; .*--staged.*--base/);
    failedWith(await runCli(['review', '--staged'], { cwd: dir, env }), /Nothing to review: the staged change is empty/);
    const outside = await mkdtemp(join(tmpdir(), 'not-a-repository-'));
    dirs.push(outside);
    failedWith(await runCli(['review'], { cwd: outside, env }), /^ai-review: Not a git repository .*run `ai-review review` inside a git work tree/);
    failedWith(await runCli(['review', '--format', 'xml'], { cwd: dir, env }), /Allowed choices are text, json, markdown, sarif|\(run `ai-review --help` for usage\)/);
    failedWith(await runCli(['review', '--staged', '--base', 'main'], { cwd: dir, env }), /cannot be used with|\(run `ai-review --help` for usage\)/);
    failedWith(await runCli(['review', '--base', 'no-such-branch'], { cwd: dir, env }), /Unknown ref no-such-branch: fetch it/);
    failedWith(await runCli(['review', 'main'], { cwd: dir, env }), /main is not a range: write it as git does, A\.\.B/);
  });

  it('a wrong token, an unreachable service, no token at all', async () => {
    write(dir, 'src/price.ts', 'export const price = 2;\n');
    failedWith(await runCli(['review'], { cwd: dir, env: { ...env, AI_REVIEW_TOKEN: 'prt_wrongwrongwrongwrongwrongwrongwrong' } }), /refused the token .*ai-review login/);
    const closed = await freePort();
    failedWith(await runCli(['review'], { cwd: dir, env: { ...env, AI_REVIEW_URL: `http://127.0.0.1:${closed}` } }), /^ai-review: Cannot reach the service at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\): check the URL/);
    failedWith(await runCli(['review'], { cwd: dir, env: { XDG_CONFIG_HOME: env.XDG_CONFIG_HOME! } }), /Not signed in: run `ai-review login`/);
  });

  it('a review that fails on the service', async () => {
    write(dir, 'src/price.ts', 'export const price = 3;\n');
    world.model.enqueue(...Array.from({ length: 6 }, () => ({ status: 500, message: 'down' })));
    failedWith(await runCli(['review'], { cwd: dir, env }), /^ai-review: The review failed: /);
  });
});
