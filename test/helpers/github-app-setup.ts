import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { FakeGitHubApp } from '../fakes/fake-github-app.js';
import { PUBLIC_URL, type AppWorld } from './github-app-world.js';
import { reviewWorld } from './review-world.js';

/** A fresh service with no GitHub App, no webhook secret and no OAuth app: what `npm start` gives (decisions.md §13). */
export function setupWorld(env: Record<string, string> = {}): Promise<AppWorld> {
  return reviewWorld({ PUBLIC_URL, GITHUB_WEBHOOK_SECRET: '', GITHUB_CLIENT_ID: '', GITHUB_CLIENT_SECRET: '', ...env }, new FakeGitHubApp());
}

export interface ManifestStart {
  url: string;
  manifest: Record<string, unknown> & { name: string; redirect_url: string };
  state: string;
}

export async function startManifest(app: FastifyInstance, cookie: string, body: Record<string, unknown> = {}): Promise<ManifestStart> {
  const response = await app.inject({ method: 'POST', url: '/admin/github-app/manifest', headers: { cookie }, payload: body });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<ManifestStart>();
}

/** The browser's part: posts the manifest form to GitHub and reads the code its confirmation button carries back. */
export async function confirmOnGitHub(start: ManifestStart): Promise<string> {
  const page = await fetch(start.url, { method: 'POST', body: new URLSearchParams({ manifest: JSON.stringify(start.manifest) }) });
  expect(page.status).toBe(200);
  return /name="code" value="([^"]+)"/.exec(await page.text())![1]!;
}

export function manifestCallback(app: FastifyInstance, cookie: string | undefined, code: string, state: string): Promise<LightMyRequestResponse> {
  return app.inject({ method: 'GET', url: `/github/app-manifest/callback?code=${encodeURIComponent(code)}&state=${encodeURIComponent(state)}`, headers: cookie === undefined ? {} : { cookie } });
}

/** The whole manifest flow, as an operator. */
export async function createAppFromManifest(app: FastifyInstance, cookie: string, body: Record<string, unknown> = {}): Promise<ManifestStart> {
  const start = await startManifest(app, cookie, body);
  const callback = await manifestCallback(app, cookie, await confirmOnGitHub(start), start.state);
  expect(callback.statusCode, callback.body).toBe(302);
  expect(callback.headers.location).toBe('/settings/github');
  return start;
}

export async function appStatus(app: FastifyInstance, cookie: string) {
  const response = await app.inject({ method: 'GET', url: '/admin/github-app', headers: { cookie } });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ configured: boolean; source: string | null; appId: string | null; slug: string | null; htmlUrl: string | null; owner: { login: string; type: string } | null }>();
}
