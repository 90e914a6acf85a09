import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '../../lib/app-error.js';
import { requireSession } from '../../plugins/app/authentication.js';
import { errorResponses, messageSchema, noContent } from '../common-schemas.js';
import { findingParams, informationItem, informationParams, listItem, startBody, startParams, verdictBody } from './review-schemas.js';

const reviewRoutes: FastifyPluginAsyncZod = async (app) => {
  const { reviews, feedback } = app.services;
  const tags = ['review'];

  app.get(
    '/information/:prId',
    {
      schema: {
        tags,
        summary: 'A pull request’s review, by GitHub pull request id or internal id',
        params: informationParams,
        response: { 200: z.array(informationItem), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => reviews.information(requireSession(request).userId, request.params.prId),
  );

  app.get(
    '/list',
    { schema: { tags, summary: 'Your 3 most recent reviews, scored', response: { 200: z.array(listItem), ...errorResponses(401) } } },
    async (request) => reviews.dashboard(requireSession(request).userId),
  );

  const startSchema = { tags, summary: 'Review the pull request again (mode: quick, focused or deep)', body: startBody, response: { 200: messageSchema, ...errorResponses(400, 401, 404, 500) } };
  app.post('/:prId', { schema: { ...startSchema, params: startParams } }, async (request) => {
    await reviews.start(requireSession(request).userId, request.params.prId, request.body.mode);
    return { message: 'Review started.' };
  });
  app.post('/', { schema: startSchema }, async (request) => {
    const prId = request.body.prId;
    if (prId === undefined) throw new AppError('BAD_REQUEST', 'prId is required, in the path or the body', [{ path: 'body.prId', message: 'Required' }]);
    await reviews.start(requireSession(request).userId, prId, request.body.mode);
    return { message: 'Review started.' };
  });

  app.patch(
    '/:prId/findings/:findingId',
    {
      schema: {
        tags,
        summary: 'Mark a finding helpful, wrong or wontfix (wrong and wontfix ones are not reported again in the repository)',
        params: findingParams,
        body: verdictBody,
        response: { 204: noContent, ...errorResponses(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const { prId, findingId } = request.params;
      await feedback.setVerdict({ userId: requireSession(request).userId, pullRequest: prId, findingId, ...request.body });
      return reply.code(204).send(null);
    },
  );
};

export default reviewRoutes;
