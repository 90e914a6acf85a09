import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { callerOf } from '../../plugins/app/authentication.js';
import { errorResponses } from '../common-schemas.js';
import { setSessionCookie } from '../../plugins/app/session-cookie.js';

const redirect = z.null().meta({ description: 'Redirect (Location header)' });

/** Sign in with GitHub, or link it: `GET /auth/codehost` then GitHub calls back. */
const codehostRoutes: FastifyPluginAsyncZod = async (app) => {
  const { codehost } = app.services;
  const secure = app.config.publicUrl.startsWith('https:');
  const tags = ['auth'];

  app.get(
    '/codehost',
    {
      config: { auth: 'optional' },
      schema: { tags, summary: 'Redirect to GitHub to sign in (or, signed in, to link GitHub)', response: { 302: redirect, ...errorResponses(503) } },
    },
    async (request, reply) => reply.redirect(await codehost.start(callerOf(request)), 302),
  );

  app.get(
    '/codehost/configured',
    {
      config: { auth: 'public' },
      schema: {
        tags,
        summary: 'Whether Sign in with GitHub is configured (the sign-in page shows its link only then)',
        response: { 200: z.object({ configured: z.boolean() }) },
      },
    },
    async () => ({ configured: await codehost.configured() }),
  );

  app.get(
    '/codehost/callback',
    {
      config: { auth: 'optional' },
      schema: {
        tags,
        summary: 'GitHub OAuth callback: signs in or links, then redirects to PUBLIC_URL',
        querystring: z.object({ code: z.string().min(1).max(512), state: z.string().min(1).max(128) }),
        response: { 302: redirect, ...errorResponses(400, 401, 403, 409, 503) },
      },
    },
    async (request, reply) => {
      const outcome = await codehost.callback(request.query, callerOf(request), request.headers['user-agent']);
      if (outcome.kind === 'signed-in') setSessionCookie(reply, outcome.token, secure);
      return reply.redirect(app.config.publicUrl, 302);
    },
  );
};

export default codehostRoutes;
