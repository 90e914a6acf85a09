import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireSession } from '../../plugins/app/authentication.js';
import { AppError } from '../../lib/app-error.js';
import { errorResponses } from '../common-schemas.js';
import { sendJsonText } from '../json-text.js';
import { historyQuery, historyResponse, rangeQuery, reviewsResponse } from './usage-schemas.js';

const usageResponse = z.object({ utilizedCost: z.number(), allowedExpenditureLimit: z.number() });

const usageRoutes: FastifyPluginAsyncZod = async (app) => {
  const { usage, usageHistory } = app.services;
  const tags = ['usage'];

  // Registered before `/:userId`; static paths win over the parameter in any case.
  app.get(
    '/history',
    {
      schema: {
        tags,
        summary: 'Use per day, week, model, repository or kind over a range of UTC days (decisions.md §14)',
        querystring: historyQuery,
        response: { 200: historyResponse, ...errorResponses(400, 401) },
      },
    },
    async (request, reply) => sendJsonText(reply, await usageHistory.history(requireSession(request).userId, request.query)),
  );

  app.get(
    '/reviews',
    {
      schema: {
        tags,
        summary: 'Review runs finished in a range: by mode, by outcome, and their durations from queue to completion',
        querystring: rangeQuery,
        response: { 200: reviewsResponse, ...errorResponses(400, 401) },
      },
    },
    async (request) => usageHistory.reviews(requireSession(request).userId, request.query),
  );

  app.get(
    '/export.csv',
    {
      schema: {
        tags,
        summary: 'Every model call of a range as CSV (RFC 4180), streamed',
        querystring: rangeQuery,
        produces: ['text/csv'],
        response: { 200: z.unknown().meta({ description: 'text/csv: a header row, then one model call a row' }), ...errorResponses(400, 401) },
      },
    },
    async (request, reply) => {
      const { userId } = requireSession(request);
      const { from, to } = request.query;
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="usage-${from}-to-${to}.csv"`)
        .send(usageHistory.exportCsv(userId, { from, to }));
    },
  );

  app.get(
    '/',
    { schema: { tags, summary: 'Spend against the free allowance', response: { 200: usageResponse, ...errorResponses(401) } } },
    async (request) => usage.summary(requireSession(request).userId),
  );

  app.get(
    '/:userId',
    {
      schema: {
        tags,
        summary: "Spend against the free allowance (the caller's own id only)",
        params: z.object({ userId: z.uuid() }),
        response: { 200: usageResponse, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const { userId } = requireSession(request);
      if (request.params.userId !== userId) throw new AppError('FORBIDDEN', "Another user's usage is not yours to read");
      return usage.summary(userId);
    },
  );
};

export default usageRoutes;
