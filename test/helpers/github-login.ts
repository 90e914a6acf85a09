import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { FakeGitHub, FakeGitHubUser } from '../fakes/fake-github.js';

/**
 * The browser's part of the OAuth dance: start at /auth/codehost, "approve" at the fake GitHub,
 * and come back to the callback with GitHub's code and the state it was given.
 */
export async function githubOAuth(app: FastifyInstance, github: FakeGitHub, user: FakeGitHubUser, cookie?: string): Promise<LightMyRequestResponse> {
  const headers = cookie === undefined ? {} : { cookie };
  const start = await app.inject({ method: 'GET', url: '/auth/codehost', headers });
  if (start.statusCode !== 302) throw new Error(`start answered ${start.statusCode}: ${start.body}`);
  const authorize = new URL(start.headers.location!);
  const state = authorize.searchParams.get('state')!;
  const { code } = github.authorize(user);
  return app.inject({ method: 'GET', url: `/auth/codehost/callback?code=${code}&state=${state}`, headers });
}

export const githubEnv = (github: FakeGitHub) => ({
  GITHUB_URL: github.url,
  GITHUB_API_URL: github.url,
  GITHUB_CLIENT_ID: 'test-client-id',
  GITHUB_CLIENT_SECRET: 'test-client-secret',
});

let nextId = 90_000_000 + Math.floor(Math.random() * 1_000_000);

export const githubUser = (overrides: Partial<FakeGitHubUser> = {}): FakeGitHubUser => {
  const id = overrides.id ?? nextId++;
  return { id, login: `octo-${id}`, name: `Octo ${id}`, email: `octo-${id}@users.example.com`, ...overrides };
};
