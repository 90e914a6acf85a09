import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

/** Where `npm run build:web` (run by `prestart`) writes the app. */
export const WEB_DIST_DIR = fileURLToPath(new URL('../../../web/dist/', import.meta.url));

/**
 * The API's mount points: an unknown path under one of them stays a JSON 404, even for a browser.
 * The app's own pages (`/pulls`, `/chat`, `/settings`, `/login`, …) use none of them.
 */
const API_PREFIXES = ['/auth', '/byok', '/conversation', '/review', '/pull-request', '/workspace', '/users', '/usage', '/webhook', '/github', '/orgs', '/invitations', '/docs', '/healthz', '/readyz', '/metrics'];

/**
 * Pages whose paths the API shares (decisions.md §14, §15): a browser's page load gets the app, the
 * API client (Accept: application/json) the API. `/invitations/<token>` is opened from an email;
 * `/usage` is reloaded or bookmarked with its range.
 */
const PAGES_UNDER_API = [/^\/usage$/, /^\/orgs\/new$/, /^\/orgs\/[^/]+\/settings(\/[^/]*)?$/, /^\/invitations\/[^/]+$/];

const IMMUTABLE = 'public, max-age=31536000, immutable';

function isApiPath(path: string): boolean {
  return API_PREFIXES.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
}

function wantsHtml(request: FastifyRequest): boolean {
  return (request.headers.accept ?? '').includes('text/html');
}

/**
 * decisions.md §9: the web app, same origin as the API. Hashed assets are served (precompressed
 * when the client accepts it) with a year of immutable caching; any other GET a browser makes for
 * a non-API path gets `index.html`, never cached, and the app routes on the client.
 */
export default fp(
  async (app, options: { distDir?: string }) => {
    const distDir = options.distDir ?? WEB_DIST_DIR;
    const indexFile = `${distDir}index.html`;
    if (!existsSync(indexFile)) {
      app.log.warn({ distDir }, 'the web app is not built (npm run build:web): only the API is served');
      return;
    }
    const indexHtml = readFileSync(indexFile);

    // The app's files are public (the page itself asks for a session); in a child context, so the
    // hook marks only these routes.
    await app.register(async (files) => {
      files.addHook('onRoute', (route) => {
        route.config = { ...route.config, auth: 'public' };
      });
      await files.register(fastifyStatic, {
        root: distDir,
        prefix: '/',
        // One route per built file, so the catch-all below and the API keep every other path.
        wildcard: false,
        index: false,
        preCompressed: true,
        decorateReply: false,
        // The cache policy is ours (setHeaders): hashed assets for a year, the rest revalidated.
        cacheControl: false,
        allowedPath: (path) => path !== '/index.html',
        setHeaders: (response, path) => {
          response.setHeader('cache-control', path.includes('/assets/') ? IMMUTABLE : 'no-cache');
        },
      });
    });

    // Before authentication (app.ts registers this plugin first): a signed-out visitor gets the page, which signs them in.
    app.addHook('onRequest', async (request, reply) => {
      if (request.method !== 'GET' || !wantsHtml(request)) return;
      const path = request.url.split('?')[0]!;
      if (PAGES_UNDER_API.some((page) => page.test(path))) await reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(indexHtml);
    });

    app.get('/*', { config: { auth: 'public' }, schema: { hide: true } }, async (request, reply) => {
      const path = request.url.split('?')[0]!;
      if (isApiPath(path) || !wantsHtml(request)) return reply.callNotFound();
      return reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(indexHtml);
    });
  },
  { name: 'web-app' },
);
