import cookie from '@fastify/cookie';
import fp from 'fastify-plugin';
import helmet from 'helmet';

/**
 * Cookies, and helmet's security headers on every response. The middleware is built once here:
 * @fastify/helmet builds it again for every request (its policies parsed each time), which was an
 * eighth of a small request's CPU.
 */
export default fp(
  async (app) => {
    await app.register(cookie);
    // The API serves JSON; the HTML is the web app (scripts from 'self' only, no inline ones) and the documentation page.
    const securityHeaders = helmet({
      contentSecurityPolicy: {
        directives: {
          defaultSrc: ["'self'"],
          scriptSrc: ["'self'"],
          styleSrc: ["'self'", "'unsafe-inline'"],
          imgSrc: ["'self'", 'data:', 'validator.swagger.io'],
          // GitHub's manifest flow (decisions.md §13): /settings/github posts the App's manifest to GitHub.
          formAction: ["'self'", app.config.github.url],
          // Over plain http (development, a LAN host) upgrading would break the web app's own assets.
          upgradeInsecureRequests: app.config.publicUrl.startsWith('https:') ? [] : null,
        },
      },
    });
    app.addHook('onRequest', (request, reply, done) => securityHeaders(request.raw, reply.raw, (error?: unknown) => done(error as Error | undefined)));
  },
  { name: 'http-security' },
);
