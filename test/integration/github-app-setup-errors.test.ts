import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createAccount } from '../helpers/accounts.js';
import type { AppWorld } from '../helpers/github-app-world.js';
import { appStatus, confirmOnGitHub, manifestCallback, setupWorld, startManifest } from '../helpers/github-app-setup.js';

/** The manifest callback's state (decisions.md §13): single-use, one hour, this operator's; refused, nothing is stored. */
describe('the GitHub App setup: refusals', () => {
  let world: AppWorld;
  let operator: { cookie: string };
  let second: { cookie: string };
  beforeAll(async () => {
    world = await setupWorld();
    const first = await createAccount(world.t.app, world.t.outbox, { email: 'first-operator@example.com' });
    operator = first;
    second = await createAccount(world.t.app, world.t.outbox);
  });
  afterAll(() => world.close());

  async function expectNothingStored() {
    expect((await appStatus(world.t.app, operator.cookie)).configured).toBe(false);
    expect((await world.t.app.inject({ method: 'GET', url: '/github/install', headers: { cookie: operator.cookie } })).statusCode).toBe(503);
  }

  it('a wrong state is a 400, and GitHub is not asked to convert the code', async () => {
    const start = await startManifest(world.t.app, operator.cookie);
    const code = await confirmOnGitHub(start);
    const response = await manifestCallback(world.t.app, operator.cookie, code, 'f'.repeat(64));
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ statusCode: 400, error: 'Bad Request', message: expect.stringContaining('expired or was already used') });
    expect(world.github.manifests.conversions).toEqual([]);
    await expectNothingStored();
  });

  it('a state older than an hour is a 400', async () => {
    const start = await startManifest(world.t.app, operator.cookie);
    const code = await confirmOnGitHub(start);
    const now = Date.now();
    const clock = vi.spyOn(Date, 'now').mockReturnValue(now + 61 * 60_000);
    try {
      expect((await manifestCallback(world.t.app, operator.cookie, code, start.state)).statusCode).toBe(400);
    } finally {
      clock.mockRestore();
    }
    expect(world.github.manifests.conversions).toEqual([]);
    await expectNothingStored();
  });

  it('a code GitHub refuses is a 400, and the state is spent: used again, a 400 without asking GitHub', async () => {
    const start = await startManifest(world.t.app, operator.cookie);
    const refused = await manifestCallback(world.t.app, operator.cookie, 'not-a-code', start.state);
    expect(refused.statusCode).toBe(400);
    expect(refused.json<{ message: string }>().message).toContain('GitHub refused');
    const code = await confirmOnGitHub(start);
    expect((await manifestCallback(world.t.app, operator.cookie, code, start.state)).statusCode).toBe(400);
    expect(world.github.manifests.conversions).toEqual([]);
    await expectNothingStored();
  });

  it('malformed input is a 400 naming the field', async () => {
    const { app } = world.t;
    const badOrganization = await app.inject({ method: 'POST', url: '/admin/github-app/manifest', headers: { cookie: operator.cookie }, payload: { organization: '-not/a login' } });
    expect(badOrganization.statusCode).toBe(400);
    expect(badOrganization.json()).toMatchObject({ details: [expect.objectContaining({ path: 'body.organization' })] });
    const noCode = await app.inject({ method: 'GET', url: '/github/app-manifest/callback?state=abc', headers: { cookie: operator.cookie } });
    expect(noCode.statusCode).toBe(400);
    expect(noCode.json()).toMatchObject({ details: [expect.objectContaining({ path: 'querystring.code' })] });
    await expectNothingStored();
  });

  it('a used state is refused the second time, after the App was stored once', async () => {
    const start = await startManifest(world.t.app, operator.cookie);
    const code = await confirmOnGitHub(start);
    expect((await manifestCallback(world.t.app, operator.cookie, code, start.state)).statusCode).toBe(302);
    const status = await appStatus(world.t.app, operator.cookie);
    expect(status.source).toBe('database');
    expect((await manifestCallback(world.t.app, operator.cookie, code, start.state)).statusCode).toBe(400);
    expect(world.github.manifests.conversions).toHaveLength(1);
    expect(await appStatus(world.t.app, operator.cookie)).toEqual(status);
    // Not an operator (the second account): the same callback is a 404.
    expect((await manifestCallback(world.t.app, second.cookie, code, start.state)).statusCode).toBe(404);
  });
});
