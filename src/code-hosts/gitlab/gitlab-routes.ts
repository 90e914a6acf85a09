import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireSession } from '../../plugins/app/authentication.js';
import { errorResponses, noContent } from '../../routes/common-schemas.js';
import { connectBody, connectionListResponse, connectionParams, connectionResponse, moveBody } from '../../routes/gitlab/gitlab-schemas.js';

/** GitLab connections (decisions.md §12): a project, its access token, and the webhook the service creates there. */
const gitlabRoutes: FastifyPluginAsyncZod = async (app) => {
  const { gitlab } = app.services;
  const tags = ['gitlab'];

  app.post(
    '/connections',
    {
      schema: {
        tags,
        summary: 'Connect a GitLab project',
        description:
          'Checks the token on the project, then creates the project webhook (merge request and note events) with a secret the service generates. The token needs the api scope and Maintainer access; it is stored encrypted and never returned.',
        body: connectBody,
        response: { 201: connectionResponse, ...errorResponses(400, 401, 403, 404, 409, 503) },
      },
    },
    async (request, reply) => reply.code(201).send(await gitlab.connect(requireSession(request).userId, request.body)),
  );

  app.get(
    '/connections',
    { schema: { tags, summary: 'Your GitLab connections, with their status', response: { 200: connectionListResponse, ...errorResponses(401) } } },
    async (request) => gitlab.list(requireSession(request).userId),
  );

  app.patch(
    '/connections/:id',
    {
      schema: {
        tags,
        summary: 'Move a connection into or out of an organization',
        description:
          'Its merge requests, reviews and learnings move with it (decisions.md §15). The caller manages it (its personal owner, or an admin or owner of its organization) and is an admin or owner of the target organization.',
        params: connectionParams,
        body: moveBody,
        response: { 200: connectionResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => gitlab.move(requireSession(request).userId, request.params.id, request.body.orgId),
  );

  app.delete(
    '/connections/:id',
    {
      schema: {
        tags,
        summary: 'Disconnect a GitLab project (its webhook is removed, best effort)',
        description: 'Its personal owner, or an admin or owner of its organization, may disconnect it.',
        params: connectionParams,
        response: { 204: noContent, ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await gitlab.disconnect(requireSession(request).userId, request.params.id);
      return reply.code(204).send(null);
    },
  );
};

export default gitlabRoutes;
