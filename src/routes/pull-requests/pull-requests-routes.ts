import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireSession } from '../../plugins/app/authentication.js';
import { errorResponses } from '../common-schemas.js';
import { sendJsonText } from '../json-text.js';
import { diffParams, diffText, listItem, listParams, listQuery, summaryItem, summaryQuery } from './pull-requests-schemas.js';

const pullRequestsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { pullRequests } = app.services;
  const tags = ['pull-request'];
  const description =
    'Up to 20 of your pull requests by `updatedAt` (desc by default). With a cursor, desc returns those updated at or ' +
    'before it and asc those at or after it, so the last item of a page is the cursor of the next (it is repeated).';

  app.get(
    '/list',
    { schema: { tags, summary: 'Your pull requests', description, querystring: listQuery, response: { 200: z.array(listItem), ...errorResponses(400, 401) } } },
    async (request, reply) => sendJsonText(reply, await pullRequests.list(requireSession(request).userId, request.query)),
  );

  app.get(
    '/list/summary',
    {
      schema: {
        tags,
        summary: 'Your pull requests updated since a time, newest first (20)',
        querystring: summaryQuery,
        response: { 200: z.array(summaryItem), ...errorResponses(400, 401) },
      },
    },
    async (request, reply) => sendJsonText(reply, await pullRequests.summary(requireSession(request).userId, request.query.updatedAt, request.query.search)),
  );

  app.get(
    '/diff/:prId',
    {
      schema: {
        tags,
        summary: "A pull request's unified diff (cached; read from GitHub first when not)",
        params: diffParams,
        response: { 200: diffText, ...errorResponses(400, 401, 404, 503) },
      },
    },
    async (request, reply) => {
      const diff = await pullRequests.diff(requireSession(request).userId, request.params.prId);
      return reply.type('text/plain; charset=utf-8').send(diff);
    },
  );

  app.get(
    '/list/:lastUpdatedAt',
    {
      schema: {
        tags,
        summary: 'Your pull requests, cursor in the path',
        description,
        params: listParams,
        querystring: listQuery,
        response: { 200: z.array(listItem), ...errorResponses(400, 401) },
      },
    },
    async (request, reply) => sendJsonText(reply, await pullRequests.list(requireSession(request).userId, request.query, request.params.lastUpdatedAt)),
  );
};

export default pullRequestsRoutes;
