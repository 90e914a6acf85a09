import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireSession } from '../../plugins/app/authentication.js';
import { errorResponses, noContent } from '../../routes/common-schemas.js';
import { connectBody, connectionListResponse, connectionParams, connectionResponse, moveBody } from './bitbucket-api-schemas.js';

/** Bitbucket connections (decisions.md §16): a repository, its token, and the webhook the service creates there. */
const bitbucketRoutes: FastifyPluginAsyncZod = async (app) => {
  const { bitbucket } = app.services;
  const tags = ['bitbucket'];

  app.post(
    '/connections',
    {
      schema: {
        tags,
        summary: 'Connect a Bitbucket Cloud repository',
        description:
          'Checks the token on the repository, creates the repository webhook (pull request and comment events) with a secret the service generates, and probes whether the token may read permissions (`commands`). ' +
          'Without `email`, `token` is a repository, project or workspace access token; with it, an Atlassian API token of a repository admin. The token is stored encrypted and never returned.',
        body: connectBody,
        response: { 201: connectionResponse, ...errorResponses(400, 401, 403, 404, 409, 503) },
      },
    },
    async (request, reply) => reply.code(201).send(await bitbucket.connect(requireSession(request).userId, request.body)),
  );

  app.get(
    '/connections',
    { schema: { tags, summary: 'Your Bitbucket connections and your organizations\', with their status', response: { 200: connectionListResponse, ...errorResponses(401) } } },
    async (request) => bitbucket.list(requireSession(request).userId),
  );

  app.patch(
    '/connections/:id',
    {
      schema: {
        tags,
        summary: 'Move a connection into or out of an organization',
        description:
          'Its pull requests, reviews and learnings move with it (decisions.md §15). The caller manages it (its personal owner, or an admin or owner of its organization) and is an admin or owner of the target organization.',
        params: connectionParams,
        body: moveBody,
        response: { 200: connectionResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => bitbucket.move(requireSession(request).userId, request.params.id, request.body.orgId),
  );

  app.delete(
    '/connections/:id',
    {
      schema: {
        tags,
        summary: 'Disconnect a Bitbucket repository (its webhook is removed, best effort)',
        description: 'Its personal owner, or an admin or owner of its organization, may disconnect it.',
        params: connectionParams,
        response: { 204: noContent, ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await bitbucket.disconnect(requireSession(request).userId, request.params.id);
      return reply.code(204).send(null);
    },
  );
};

export default bitbucketRoutes;
