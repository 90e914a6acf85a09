import { join } from 'node:path';
import { FakeGitHub } from '../../test/fakes/fake-github.js';
import { Outbox } from '../../test/helpers/outbox.js';

const json = { 'content-type': 'application/json' };

/** Signs up and verifies through the API, reading the code from the outbox. Returns the cookie. */
export async function signUp(url: string, dataDir: string, email = 'bench@example.com'): Promise<string> {
  const post = (path: string, body: unknown) => fetch(`${url}${path}`, { method: 'POST', headers: json, body: JSON.stringify(body) });
  await post('/auth/signup', { name: 'Bench', email, password: 'bench password' });
  const otp = await new Outbox(join(dataDir, 'outbox')).code(email);
  const verify = await post('/auth/verify-email', { email, otp });
  return verify.headers.getSetCookie()[0]!.split(';')[0]!;
}

/** A fake GitHub and the configuration that points the service at it. */
export async function fakeGitHub() {
  const github = await new FakeGitHub().start();
  const env = { GITHUB_URL: github.url, GITHUB_API_URL: github.url, GITHUB_CLIENT_ID: 'bench-client', GITHUB_CLIENT_SECRET: 'bench-secret' };
  return { github, env };
}

/** Signs a GitHub user in through the OAuth flow, as a browser would; returns the session cookie. */
export async function signInWithGitHub(url: string, github: FakeGitHub, id: number, login: string): Promise<string> {
  const start = await fetch(`${url}/auth/codehost`, { redirect: 'manual' });
  const state = new URL(start.headers.get('location')!).searchParams.get('state')!;
  const { code } = github.authorize({ id, login, name: login, email: `${login}@example.com` });
  const callback = await fetch(`${url}/auth/codehost/callback?code=${code}&state=${state}`, { redirect: 'manual' });
  if (callback.status !== 302) throw new Error(`GitHub sign-in failed: ${callback.status} ${await callback.text()}`);
  return callback.headers.getSetCookie()[0]!.split(';')[0]!;
}
