import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { FakeGitHub, FakeGitHubUser } from '../fakes/fake-github.js';
import { cookieOf, sessionCookie } from './accounts.js';

/** Starts the OAuth dance at /auth/codehost (as `cookie`'s user, if given); returns the state GitHub is handed. */
export async function oauthState(app: FastifyInstance, cookie?: string): Promise<string> {
  const start = await app.inject({ method: 'GET', url: '/auth/codehost', headers: cookie === undefined ? {} : { cookie } });
  expect(start.statusCode, start.body).toBe(302);
  return new URL(start.headers.location!).searchParams.get('state')!;
}

/**
 * The browser's part of the OAuth dance: start at /auth/codehost, "approve" at the fake GitHub,
 * and come back to the callback with GitHub's code and the state it was given.
 */
export async function githubOAuth(app: FastifyInstance, github: FakeGitHub, user: FakeGitHubUser, cookie?: string): Promise<LightMyRequestResponse> {
  const state = await oauthState(app, cookie);
  const { code } = github.authorize(user);
  return app.inject({ method: 'GET', url: `/auth/codehost/callback?code=${code}&state=${state}`, headers: cookie === undefined ? {} : { cookie } });
}

export interface GitHubSignIn {
  githubId: number;
  userId: string;
  /** `session=<token>`, ready for a Cookie header. */
  cookie: string;
}

/** A user who signed in with GitHub (a new one unless `profile` says who): the author of the pull requests a test delivers. */
export async function signInWithGitHub(app: FastifyInstance, github: FakeGitHub, profile: FakeGitHubUser = githubUser()): Promise<GitHubSignIn> {
  const callback = await githubOAuth(app, github, profile);
  expect(callback.statusCode, callback.body).toBe(302);
  const cookie = sessionCookie(callback);
  const user = await app.repos.users.findByCodehostId(profile.id);
  expect(user, `no user for GitHub id ${profile.id}`).toBeDefined();
  return { githubId: profile.id, userId: user!.id, cookie };
}

/** The same sign-in against a server process, over HTTP. */
export async function signInWithGitHubOverHttp(baseUrl: string, github: FakeGitHub, profile: FakeGitHubUser = githubUser()): Promise<Omit<GitHubSignIn, 'userId'>> {
  const start = await fetch(`${baseUrl}/auth/codehost`, { redirect: 'manual' });
  expect(start.status).toBe(302);
  const state = new URL(start.headers.get('location')!).searchParams.get('state')!;
  const { code } = github.authorize(profile);
  const callback = await fetch(`${baseUrl}/auth/codehost/callback?code=${code}&state=${state}`, { redirect: 'manual' });
  expect(callback.status).toBe(302);
  return { githubId: profile.id, cookie: cookieOf(callback) };
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
