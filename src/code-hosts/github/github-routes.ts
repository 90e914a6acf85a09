import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireSession } from '../../plugins/app/authentication.js';
import { errorResponses } from '../../routes/common-schemas.js';
import { moveBody } from '../../routes/common-schemas.js';
import { installationItem, installationParams, installationsResponse } from '../../routes/github/github-schemas.js';

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

  app.patch(
    '/installations/:installationId',
    {
      schema: {
        tags,
        summary: 'Move an installation into or out of an organization',
        description:
          'Its pull requests, reviews and learnings move with it (decisions.md §15). The caller manages it (its personal owner, or an admin or owner of its organization) and is an admin or owner of the target organization.',
        params: installationParams,
        body: moveBody,
        response: { 200: installationItem, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => githubApp.move(requireSession(request).userId, request.params.installationId, request.body.orgId),
  );
};

export default githubRoutes;
