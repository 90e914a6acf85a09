import cookie from '@fastify/cookie';
import helmet from '@fastify/helmet';
import fp from 'fastify-plugin';

export default fp(
  async (app) => {
    await app.register(cookie);
    // The API serves JSON; the HTML is the web app (scripts from 'self' only, no inline ones) and the documentation page.
    await app.register(helmet, {
      contentSecurityPolicy: {
        directives: {
          defaultSrc: ["'self'"],
          scriptSrc: ["'self'"],
          styleSrc: ["'self'", "'unsafe-inline'"],
          imgSrc: ["'self'", 'data:', 'validator.swagger.io'],
          // Over plain http (development, a LAN host) upgrading would break the web app's own assets.
          upgradeInsecureRequests: app.config.publicUrl.startsWith('https:') ? [] : null,
        },
      },
    });
  },
  { name: 'http-security' },
);
