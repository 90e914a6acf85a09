import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireSession } from '../../plugins/app/authentication.js';
import { errorResponses } from '../../routes/common-schemas.js';
import { installationsResponse } from '../../routes/github/github-schemas.js';

const redirect = z.null().meta({ description: 'Redirect (Location header)' });

/** The GitHub App (decisions.md §8): the install link and the caller's installations. */
const githubRoutes: FastifyPluginAsyncZod = async (app) => {
  const { githubApp } = app.services;
  const tags = ['github'];

  app.get(
    '/install',
    { schema: { tags, summary: 'Redirect to GitHub to install the App', response: { 302: redirect, ...errorResponses(401, 503) } } },
    async (request, reply) => {
      requireSession(request);
      return reply.redirect(await githubApp.installUrl(), 302);
    },
  );

  app.get(
    '/installations',
    { schema: { tags, summary: "The caller's installations of the App", response: { 200: installationsResponse, ...errorResponses(401) } } },
    async (request) => githubApp.installations(requireSession(request).userId),
  );
};

export default githubRoutes;
