import { join } from 'node:path';
import { FakeGitHub } from '../../test/fakes/fake-github.js';
import { cookieOf } from '../../test/helpers/accounts.js';
import { githubEnv } from '../../test/helpers/github-login.js';
import { Outbox } from '../../test/helpers/outbox.js';

const json = { 'content-type': 'application/json' };

/** Throws with the answer's status and body unless it has the expected status. */
export async function expectStatus(response: Response, expected: number, what: string): Promise<Response> {
  if (response.status !== expected) throw new Error(`${what} answered ${response.status} (expected ${expected}): ${await response.text()}`);
  return response;
}

/** Signs up and verifies through the API, reading the code from the outbox. Returns the cookie. */
export async function signUp(url: string, dataDir: string, email = 'bench@example.com'): Promise<string> {
  const post = (path: string, body: unknown) => fetch(`${url}${path}`, { method: 'POST', headers: json, body: JSON.stringify(body) });
  await expectStatus(await post('/auth/signup', { name: 'Bench', email, password: 'bench password' }), 201, `signup of ${email}`);
  const otp = await new Outbox(join(dataDir, 'outbox')).code(email);
  return cookieOf(await expectStatus(await post('/auth/verify-email', { email, otp }), 200, `email verification of ${email}`));
}

/** A fake GitHub and the configuration that points the service at it. */
export async function fakeGitHub() {
  const github = await new FakeGitHub().start();
  return { github, env: githubEnv(github) };
}
