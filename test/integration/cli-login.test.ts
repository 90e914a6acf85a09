import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, type Account } from '../helpers/accounts.js';
import { createToken } from '../helpers/api-tokens.js';
import { freePort } from '../helpers/net.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

const BIN = fileURLToPath(new URL('../../bin/ai-review.js', import.meta.url));
const run = promisify(execFile);

/** The real `bin/ai-review.js` against the service: login, whoami, logout and their failures (decisions.md §17). */
describe('ai-review login, whoami, logout', () => {
  let t: TestApp;
  let url: string;
  let account: Account;
  let token: string;
  let config: string;

  beforeAll(async () => {
    t = await createTestApp();
    const port = await freePort();
    await t.app.listen({ port, host: '127.0.0.1' });
    url = `http://127.0.0.1:${port}`;
    account = await createAccount(t.app, t.outbox);
    token = (await createToken(t.app, account.cookie)).token;
    config = await mkdtemp(join(tmpdir(), 'ai-review-config-'));
  });
  afterAll(async () => {
    await t?.close();
    await rm(config, { recursive: true, force: true });
  });

  const cli = async (args: string[], env: Record<string, string> = {}) => {
    const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('AI_REVIEW_')));
    try {
      const { stdout, stderr } = await run(process.execPath, [BIN, ...args], { env: { ...clean, XDG_CONFIG_HOME: config, NO_COLOR: '1', ...env } });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  };
  const file = () => join(config, 'ai-review', 'config.json');

  it('login checks the token and saves URL and token with mode 0600; whoami names the user; logout forgets', async () => {
    const login = await cli(['login', '--url', `${url}/`, '--token', token]);
    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout).toContain(account.email);
    expect(JSON.parse(await readFile(file(), 'utf8'))).toEqual({ url, token });
    expect((await stat(file())).mode & 0o777).toBe(0o600);

    const whoami = await cli(['whoami']);
    expect(whoami).toMatchObject({ code: 0, stdout: `${account.name} <${account.email}> on ${url}\n` });

    const logout = await cli(['logout']);
    expect(logout.code).toBe(0);
    await expect(stat(file())).rejects.toThrow();
    const after = await cli(['whoami']);
    expect(after.code).toBe(2);
    expect(after.stderr.trim().split('\n')).toEqual([expect.stringContaining('ai-review login')]);
  }, 120_000);

  it('AI_REVIEW_URL and AI_REVIEW_TOKEN override the file', async () => {
    const whoami = await cli(['whoami'], { AI_REVIEW_URL: url, AI_REVIEW_TOKEN: token });
    expect(whoami).toMatchObject({ code: 0, stdout: expect.stringContaining(account.email) });
  }, 60_000);

  it('a wrong token and an unreachable service: exit 2, one line naming the cause and what to do, nothing saved', async () => {
    const wrong = await cli(['login', '--url', url, '--token', 'prt_wrongwrongwrongwrongwrongwrongwrong']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr.trim().split('\n')).toEqual([expect.stringMatching(/refused the token.*settings\/tokens.*ai-review login/)]);
    const closed = `http://127.0.0.1:${await freePort()}`;
    const unreachable = await cli(['login', '--url', closed, '--token', token]);
    expect(unreachable.code).toBe(2);
    expect(unreachable.stderr.trim().split('\n')).toEqual([expect.stringMatching(/Cannot reach the service at .*ECONNREFUSED.*running/)]);
    await expect(stat(file())).rejects.toThrow();
  }, 120_000);

  it('a usage error exits 2', async () => {
    expect((await cli(['login', '--no-such-option'])).code).toBe(2);
  }, 60_000);
});
