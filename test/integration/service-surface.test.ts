import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

describe('service surface', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('healthz and readyz answer without a session', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/healthz' })).json()).toEqual({ status: 'ok' });
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ok', checks: { database: 'ok', store: 'ok', queue: 'ok' } });
  });

  it('serves the OpenAPI document, generated from the route schemas, at /docs', async () => {
    const spec = (await t.app.inject({ method: 'GET', url: '/docs/json' })).json<{ paths: Record<string, Record<string, { requestBody?: unknown }>> }>();
    expect(Object.keys(spec.paths)).toEqual(
      expect.arrayContaining([
        '/auth/signup',
        '/auth/login',
        '/auth/session',
        '/auth/sessions',
        '/auth/codehost',
        '/auth/codehost/callback',
        '/users/',
        '/usage/',
        '/usage/{userId}',
        '/webhook/',
        '/pull-request/list',
        '/pull-request/list/{lastUpdatedAt}',
        '/pull-request/list/summary',
        '/byok/',
        '/byok/model-list',
        '/byok/providers',
        '/byok/providers/{providerId}',
        '/workspace/{tab}',
        '/review/information/{prId}',
        '/review/list',
        '/review/{prId}',
        '/conversation/',
        '/conversation/chat',
        '/conversation/chat/{id}',
        '/conversation/feedback',
        '/healthz',
        '/readyz',
      ]),
    );
    expect(spec.paths['/auth/signup']?.post?.requestBody).toBeDefined();
    const page = await t.app.inject({ method: 'GET', url: '/docs' });
    expect([200, 302]).toContain(page.statusCode);
  });

  it('answers unknown routes with the error shape, and sets security headers', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/nowhere?x=1' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ statusCode: 404, error: 'Not Found', message: 'Route GET /nowhere not found' });
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['content-security-policy']).toBeDefined();
  });

  it('readyz is 503 and names what is down when Redis cannot be reached', async () => {
    // Port 1 refuses connections: the store and the BullMQ queue are down, the database is not.
    const broken = await createTestApp({ env: { REDIS_URL: 'redis://127.0.0.1:1' } });
    try {
      const ready = await broken.app.inject({ method: 'GET', url: '/readyz' });
      expect(ready.statusCode).toBe(503);
      expect(ready.json()).toEqual({ status: 'unavailable', checks: { database: 'ok', store: 'down', queue: 'down' } });
      expect((await broken.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    } finally {
      await broken.close();
    }
  });
});
