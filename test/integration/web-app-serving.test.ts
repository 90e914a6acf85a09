import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

const INDEX = '<!doctype html><html><head><script type="module" src="/assets/app-abc123.js"></script></head><body><div id="root"></div></body></html>';
const SCRIPT = `console.log(${JSON.stringify('x'.repeat(2000))});`;

/** decisions.md §9: the app and the API on one origin. */
describe('the web app, served by the service', () => {
  let t: TestApp;
  let dist: string;
  beforeAll(async () => {
    dist = `${await mkdtemp(join(tmpdir(), 'web-dist-'))}/`;
    await mkdir(join(dist, 'assets'));
    await writeFile(join(dist, 'index.html'), INDEX);
    await writeFile(join(dist, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    await writeFile(join(dist, 'assets/app-abc123.js'), SCRIPT);
    await writeFile(join(dist, 'assets/app-abc123.js.br'), brotliCompressSync(SCRIPT));
    t = await createTestApp({ webDistDir: dist });
  });
  afterAll(async () => {
    await t.close();
    await rm(dist, { recursive: true, force: true });
  });

  const html = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };

  it.each(['/', '/login', '/pulls', '/pulls/123456', '/chat/0c8a6f0e-0000-4000-8000-000000000000', '/settings/profile', '/anything/else'])(
    'a browser navigating to %s gets index.html, never cached, signed in or not',
    async (url) => {
      const response = await t.app.inject({ method: 'GET', url, headers: html });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toMatch(/^text\/html/);
      expect(response.headers['cache-control']).toBe('no-cache');
      expect(response.body).toBe(INDEX);
    },
  );

  it('keeps the strict CSP: scripts from the origin only, no inline ones', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/', headers: html });
    const csp = response.headers['content-security-policy'] as string;
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    // Over http (PUBLIC_URL's default), upgrading requests would break the app's own assets.
    expect(csp).not.toContain('upgrade-insecure-requests');
  });

  it('serves hashed assets immutable, precompressed when the client accepts it', async () => {
    const plain = await t.app.inject({ method: 'GET', url: '/assets/app-abc123.js' });
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(plain.body).toBe(SCRIPT);
    const compressed = await t.app.inject({ method: 'GET', url: '/assets/app-abc123.js', headers: { 'accept-encoding': 'br, gzip' } });
    expect(compressed.headers['content-encoding']).toBe('br');
    expect(Number(compressed.headers['content-length'])).toBeLessThan(SCRIPT.length / 4);
    const icon = await t.app.inject({ method: 'GET', url: '/favicon.svg' });
    expect(icon.headers['cache-control']).toBe('no-cache');
  });

  it('gives a browser the page, and an API client the JSON, where a page shares its path with the API', async () => {
    for (const url of ['/usage', '/usage?from=2026-11-01&to=2026-11-30', '/orgs/new']) {
      const page = await t.app.inject({ method: 'GET', url, headers: html });
      expect(page.statusCode, url).toBe(200);
      expect(page.body, url).toBe(INDEX);
    }
    const api = await t.app.inject({ method: 'GET', url: '/usage', headers: { accept: 'application/json' } });
    expect(api.statusCode).toBe(401);
    expect(api.json()).toMatchObject({ statusCode: 401 });
  });

  it('keeps JSON answers for API paths, unknown ones included, even for a browser', async () => {
    for (const url of ['/review/unknown', '/pull-request/nope', '/auth', '/github/nothing', '/docs/nope']) {
      const response = await t.app.inject({ method: 'GET', url, headers: html });
      expect(response.statusCode, url).toBe(404);
      expect(response.json(), url).toMatchObject({ statusCode: 404, error: 'Not Found' });
    }
    // An API route answers as ever: /users is no page of the app.
    const users = await t.app.inject({ method: 'GET', url: '/users', headers: html });
    expect(users.statusCode).toBe(401);
    expect(users.json()).toMatchObject({ statusCode: 401 });
    const health = await t.app.inject({ method: 'GET', url: '/healthz', headers: html });
    expect(health.json()).toEqual({ status: 'ok' });
  });

  it('answers JSON 404 to a request that does not accept html, and to other methods', async () => {
    const json = await t.app.inject({ method: 'GET', url: '/pulls/1', headers: { accept: 'application/json' } });
    expect(json.statusCode).toBe(404);
    expect(json.json()).toMatchObject({ statusCode: 404 });
    const post = await t.app.inject({ method: 'POST', url: '/pulls/1', headers: html, payload: {} });
    expect(post.statusCode).toBe(404);
    const missingAsset = await t.app.inject({ method: 'GET', url: '/assets/missing-000.js' });
    expect(missingAsset.statusCode).toBe(404);
  });

  it('tells the sign-in page whether Sign in with GitHub is configured, without a session', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/auth/codehost/configured' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ configured: false });
  });
});

describe('the service without a built web app', () => {
  it('serves the API only: unknown paths stay JSON 404s', async () => {
    const t = await createTestApp({ webDistDir: join(tmpdir(), 'no-such-web-dist/') });
    try {
      const response = await t.app.inject({ method: 'GET', url: '/', headers: { accept: 'text/html' } });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toMatchObject({ statusCode: 404 });
    } finally {
      await t.close();
    }
  });
});
