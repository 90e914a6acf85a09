import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cookieOf } from '../helpers/accounts.js';
import { Outbox } from '../helpers/outbox.js';
import { failedStart, startServer } from '../helpers/server-process.js';

/** The first-run story of the README: `npm start` with nothing installed but Node. */
describe('the server process on embedded defaults', () => {
  const directories: string[] = [];
  const newDataDir = async () => {
    const directory = await mkdtemp(join(tmpdir(), 'embedded-server-'));
    directories.push(directory);
    return directory;
  };
  afterAll(async () => {
    for (const directory of directories) await rm(directory, { recursive: true, force: true });
  });

  // Two process starts of up to 60 s each (tsx, migrations): more than the default test timeout on a busy machine.
  it('signs up, verifies from the outbox, logs in, lists sessions, logs out; user and session survive a restart', { timeout: 180_000 }, async () => {
    const dataDir = await newDataDir();
    const outbox = new Outbox(join(dataDir, 'outbox'));
    let server = await startServer({ DATA_DIR: dataDir });
    const json = (response: Response) => response.json() as Promise<Record<string, unknown>>;
    const call = (path: string, init: RequestInit = {}) =>
      fetch(`${server.url}${path}`, { ...init, headers: { 'content-type': 'application/json', ...(init.headers as object) } });

    const email = 'first.user@example.com';
    const signup = await call('/auth/signup', { method: 'POST', body: JSON.stringify({ name: 'First', email, password: 'first password' }) });
    expect(signup.status).toBe(201);
    const otp = await outbox.code(email);
    const verify = await call('/auth/verify-email', { method: 'POST', body: JSON.stringify({ email, otp }) });
    expect(verify.status).toBe(200);

    const login = await call('/auth/login', { method: 'POST', body: JSON.stringify({ email, password: 'first password' }) });
    expect(login.status).toBe(200);
    const cookie = cookieOf(login);
    const sessions = (await (await call('/auth/sessions', { headers: { cookie } })).json()) as unknown[];
    expect(sessions).toHaveLength(2);

    const verifyCookie = cookieOf(verify);
    expect((await call('/auth/logout', { method: 'DELETE', headers: { cookie: verifyCookie } })).status).toBe(204);
    expect((await call('/auth/session', { headers: { cookie: verifyCookie } })).status).toBe(401);

    expect(await server.stop('SIGTERM')).toBe(0);
    server = await startServer({ DATA_DIR: dataDir });
    const session = await call('/auth/session', { headers: { cookie } });
    expect(session.status).toBe(200);
    expect((await json(session)).userId).toBe(((await json(verify)).user as { id: string }).id);
    expect((await call('/auth/session', { headers: { cookie: verifyCookie } })).status).toBe(401);
    expect((await call('/auth/login', { method: 'POST', body: JSON.stringify({ email, password: 'first password' }) })).status).toBe(200);
    expect(await server.stop('SIGINT')).toBe(0);
  });

  it('refuses to start on a bad value, naming the variable', async () => {
    const dataDir = await newDataDir();
    const badPort = await failedStart({ DATA_DIR: dataDir, PORT: 'abc' });
    expect(badPort.code).toBe(1);
    expect(badPort.output).toContain('Invalid configuration: PORT: must be a number');

    const splitRole = await failedStart({ DATA_DIR: dataDir, ROLE: 'worker' });
    expect(splitRole.code).toBe(1);
    expect(splitRole.output).toContain('Invalid configuration: ROLE: worker needs DATABASE_URL');
  });
});
