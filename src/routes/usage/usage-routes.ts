import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireSession } from '../../plugins/app/authentication.js';
import { AppError } from '../../lib/app-error.js';
import { errorResponses } from '../common-schemas.js';
import { sendJsonText } from '../json-text.js';
import { orgIdOnly, resolveSpace, spaceOf, type SpaceOptions } from '../spaces.js';
import { historyQuery, historyResponse, orgHistoryQuery, orgHistoryResponse, rangeQuery, reviewsResponse } from './usage-schemas.js';

const usageResponse = z.object({ utilizedCost: z.number(), allowedExpenditureLimit: z.number() });

/**
 * Usage (decisions.md §14): the caller's own, or (as `/orgs/:orgId/usage`) an organization's, which
 * every member reads; an organization's history also groups by member and its CSV names them.
 */
const usageRoutes: FastifyPluginAsyncZod<SpaceOptions> = async (app, options) => {
  const { usage, usageHistory } = app.services;
  const org = options.space === 'organization';
  const tags = [org ? 'organizations' : 'usage'];
  const params = orgIdOnly(options);
  resolveSpace(app, options);

  // Registered before `/:userId`; static paths win over the parameter in any case.
  app.get(
    '/history',
    {
      schema: {
        tags,
        summary: `Use per day, week, model, repository${org ? ', member' : ''} or kind over a range of UTC days (decisions.md §14)`,
        ...params,
        querystring: org ? orgHistoryQuery : historyQuery,
        response: { 200: org ? orgHistoryResponse : historyResponse, ...errorResponses(400, 401) },
      },
    },
    async (request, reply) => sendJsonText(reply, await usageHistory.history(spaceOf(request).owner, request.query)),
  );

  app.get(
    '/reviews',
    {
      schema: {
        tags,
        summary: 'Review runs finished in a range: by mode, by outcome, and their durations from queue to completion',
        ...params,
        querystring: rangeQuery,
        response: { 200: reviewsResponse, ...errorResponses(400, 401) },
      },
    },
    async (request) => usageHistory.reviews(spaceOf(request).owner, request.query),
  );

  app.get(
    '/export.csv',
    {
      schema: {
        tags,
        summary: `Every model call of a range as CSV (RFC 4180), streamed${org ? ', the member last' : ''}`,
        ...params,
        querystring: rangeQuery,
        produces: ['text/csv'],
        response: { 200: z.unknown().meta({ description: 'text/csv: a header row, then one model call a row' }), ...errorResponses(400, 401) },
      },
    },
    async (request, reply) => {
      const { owner } = spaceOf(request);
      const { from, to } = request.query;
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="usage-${from}-to-${to}.csv"`)
        .send(usageHistory.exportCsv(owner, { from, to }));
    },
  );

  app.get(
    '/',
    { schema: { tags, summary: `Spend against ${org ? "the organization's" : 'the'} free allowance`, ...params, response: { 200: usageResponse, ...errorResponses(401) } } },
    async (request) => usage.summary(spaceOf(request).owner),
  );

  if (org) return;
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
      return usage.summary(spaceOf(request).owner);
    },
  );
};

export default usageRoutes;
