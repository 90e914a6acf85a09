import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import fp from 'fastify-plugin';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { SESSION_COOKIE } from './session-cookie.js';

/** The OpenAPI document is generated from the routes' zod schemas and served at /docs. */
export default fp(
  async (app) => {
    await app.register(swagger, {
      openapi: {
        info: {
          title: 'Pull-request review service',
          description: 'GitHub pull requests in, structured AI review findings out. Errors: `{statusCode, error, message}`.',
          version: '1.0.0',
        },
        servers: [{ url: app.config.publicUrl }],
        components: {
          securitySchemes: {
            session: { type: 'apiKey', in: 'cookie', name: SESSION_COOKIE },
            // Personal API tokens (decisions.md §17), created with a session at POST /auth/tokens.
            apiToken: { type: 'http', scheme: 'bearer', description: 'A personal API token (`prt_…`)' },
          },
        },
        security: [{ session: [] }, { apiToken: [] }],
      },
      transform: jsonSchemaTransform,
      transformObject: jsonSchemaTransformObject,
    });
    // The documentation itself is public.
    app.addHook('onRoute', (route) => {
      if (route.url.startsWith('/docs')) route.config = { ...route.config, auth: 'public' };
    });
    await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true, uiConfig: { docExpansion: 'list' } });
  },
  { name: 'openapi', dependencies: ['infrastructure'] },
);
