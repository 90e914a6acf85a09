import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, sessionCookie } from '../helpers/accounts.js';
import { githubEnv, githubOAuth, githubUser, oauthState } from '../helpers/github-login.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { FakeGitHub } from '../fakes/fake-github.js';

describe('sign in with GitHub', () => {
  let github: FakeGitHub;
  let t: TestApp;
  beforeAll(async () => {
    github = await new FakeGitHub().start();
    t = await createTestApp({ env: { ...githubEnv(github), PUBLIC_URL: 'http://reviews.test' } });
  });
  afterAll(async () => {
    await t.close();
    await github.stop();
  });

  it('tells the web app, without a session, that it is configured', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/auth/codehost/configured' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ configured: true });
  });

  it('redirects to GitHub with the client id, callback, scope and a state', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/auth/codehost' });
    expect(response.statusCode).toBe(302);
    const location = new URL(response.headers.location!);
    expect(`${location.origin}${location.pathname}`).toBe(`${github.url}/login/oauth/authorize`);
    expect(Object.fromEntries(location.searchParams)).toEqual({
      client_id: 'test-client-id',
      redirect_uri: 'http://reviews.test/auth/codehost/callback',
      scope: 'read:user user:email repo',
      state: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
  });

  it('creates a codehost user on first sign-in, keeps the token encrypted, and signs the same user in again', async () => {
    const profile = githubUser({ name: 'Mona Lisa Octocat' });
    const callback = await githubOAuth(t.app, github, profile);
    expect(callback.statusCode).toBe(302);
    expect(callback.headers.location).toBe('http://reviews.test');
    const cookie = sessionCookie(callback);

    const session = (await t.app.inject({ method: 'GET', url: '/auth/session', headers: { cookie } })).json<{ userId: string }>();
    const user = (await t.app.repos.users.findById(session.userId))!;
    expect(user).toMatchObject({ name: 'Mona Lisa Octocat', email: profile.email, loginMethod: 'codehost', codehostUserId: profile.id, codehostUsername: profile.login, password: null });
    expect(user.codehostToken).toMatch(/^v1\./);
    const tokenRequest = github.requests.filter((request) => request.path === '/user').at(-1)!;
    const token = tokenRequest.headers.authorization!.replace('Bearer ', '');
    expect(user.codehostToken).not.toContain(token);
    expect(t.app.secretBox.decrypt(user.codehostToken!)).toBe(token);

    const again = await githubOAuth(t.app, github, profile);
    const second = (await t.app.inject({ method: 'GET', url: '/auth/session', headers: { cookie: sessionCookie(again) } })).json<{ userId: string }>();
    expect(second.userId).toBe(session.userId);
  });

  it('takes the primary verified address from /user/emails when the profile hides it', async () => {
    const profile = githubUser({
      email: null,
      emails: [
        { email: 'old@example.com', primary: false, verified: true },
        { email: 'Primary.Hidden@Example.com', primary: true, verified: true },
      ],
    });
    const callback = await githubOAuth(t.app, github, profile);
    expect(callback.statusCode).toBe(302);
    expect((await t.app.repos.users.findByCodehostId(profile.id))?.email).toBe('primary.hidden@example.com');
  });

  it('falls back to the GitHub noreply address when there is no verified email', async () => {
    const profile = githubUser({ email: null, emails: [{ email: 'unverified@example.com', primary: true, verified: false }] });
    await githubOAuth(t.app, github, profile);
    expect((await t.app.repos.users.findByCodehostId(profile.id))?.email).toBe(`${profile.id}+${profile.login}@users.noreply.github.com`);
  });

  it('links GitHub to a signed-in email account, keeping its session', async () => {
    const account = await createAccount(t.app, t.outbox);
    const profile = githubUser();
    const callback = await githubOAuth(t.app, github, profile, account.cookie);
    expect(callback.statusCode).toBe(302);
    expect(callback.cookies).toEqual([]);
    expect(await t.app.repos.users.findById(account.id)).toMatchObject({ codehostUserId: profile.id, codehostUsername: profile.login, loginMethod: 'email' });
    // Signing in with GitHub now reaches the same account.
    const login = await githubOAuth(t.app, github, profile);
    expect((await t.app.inject({ method: 'GET', url: '/auth/session', headers: { cookie: sessionCookie(login) } })).json<{ userId: string }>().userId).toBe(account.id);
  });

  it('refuses to link a GitHub account that another user holds (409)', async () => {
    const profile = githubUser();
    await githubOAuth(t.app, github, profile);
    const account = await createAccount(t.app, t.outbox);
    const callback = await githubOAuth(t.app, github, profile, account.cookie);
    expect(callback.statusCode).toBe(409);
    expect(callback.json()).toMatchObject({ statusCode: 409, error: 'Conflict' });
    expect((await t.app.repos.users.findById(account.id))?.codehostUserId).toBeNull();
  });

  it('does not take over an email account by signing in with GitHub (409)', async () => {
    const account = await createAccount(t.app, t.outbox);
    const callback = await githubOAuth(t.app, github, githubUser({ email: account.email }));
    expect(callback.statusCode).toBe(409);
  });

  it('gives a renamed-away login to its new holder', async () => {
    const first = githubUser({ login: 'shared-login' });
    await githubOAuth(t.app, github, first);
    const second = githubUser({ login: 'shared-login' });
    expect((await githubOAuth(t.app, github, second)).statusCode).toBe(302);
    expect((await t.app.repos.users.findByCodehostId(first.id))?.codehostUsername).toBeNull();
    expect((await t.app.repos.users.findByCodehostId(second.id))?.codehostUsername).toBe('shared-login');
  });

  it('refuses an unknown, reused or missing state, and a code GitHub rejects', async () => {
    const { code } = github.authorize(githubUser());
    expect((await t.app.inject({ method: 'GET', url: `/auth/codehost/callback?code=${code}&state=${'0'.repeat(64)}` })).statusCode).toBe(400);
    expect((await t.app.inject({ method: 'GET', url: `/auth/codehost/callback?code=${code}` })).statusCode).toBe(400);

    const state = await oauthState(t.app);
    const rejected = await t.app.inject({ method: 'GET', url: `/auth/codehost/callback?code=not-a-code&state=${state}` });
    expect(rejected.statusCode).toBe(400);
    expect(rejected.json<{ message: string }>().message).toMatch(/GitHub refused/);
    // The state was spent by the failed attempt.
    expect((await t.app.inject({ method: 'GET', url: `/auth/codehost/callback?code=${code}&state=${state}` })).statusCode).toBe(400);
  });

  it('a link started by one user cannot be finished by another session or none', async () => {
    const alice = await createAccount(t.app, t.outbox);
    const bob = await createAccount(t.app, t.outbox);
    const state = await oauthState(t.app, alice.cookie);
    const { code } = github.authorize(githubUser());
    const hijack = await t.app.inject({ method: 'GET', url: `/auth/codehost/callback?code=${code}&state=${state}`, headers: { cookie: bob.cookie } });
    expect(hijack.statusCode).toBe(401);
    expect((await t.app.repos.users.findById(bob.id))?.codehostUserId).toBeNull();
  });

  it('never logs the OAuth code, state or token', async () => {
    const profile = githubUser();
    const state = await oauthState(t.app);
    const { code, token } = github.authorize(profile);
    await t.app.inject({ method: 'GET', url: `/auth/codehost/callback?code=${code}&state=${state}` });
    const logs = t.logs.join('');
    for (const secret of [code, state, token]) expect(logs).not.toContain(secret);
  });
});

describe('sign in with GitHub, not configured or unreachable', () => {
  it('answers 503 when no OAuth app is configured', async () => {
    const t = await createTestApp();
    try {
      for (const url of ['/auth/codehost', '/auth/codehost/callback?code=x&state=y']) {
        const response = await t.app.inject({ method: 'GET', url });
        expect(response.statusCode).toBe(503);
        expect(response.json()).toMatchObject({ statusCode: 503, error: 'Service Unavailable' });
      }
    } finally {
      await t.close();
    }
  });

  it('answers 503 when GitHub cannot be reached', async () => {
    const t = await createTestApp({ env: { GITHUB_URL: 'http://127.0.0.1:1', GITHUB_API_URL: 'http://127.0.0.1:1', GITHUB_CLIENT_ID: 'id', GITHUB_CLIENT_SECRET: 'secret' } });
    try {
      const state = await oauthState(t.app);
      const response = await t.app.inject({ method: 'GET', url: `/auth/codehost/callback?code=abc&state=${state}` });
      expect(response.statusCode).toBe(503);
    } finally {
      await t.close();
    }
  });
});
