import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorResponses, noContent } from '../common-schemas.js';
import { orgIdOnly, resolveSpace, spaceOf, spaceParams, type SpaceOptions } from '../spaces.js';
import { learningItem, learningParams, learningsQuery } from './review-schemas.js';

/**
 * Learnings (decisions.md §10): the caller's own (`/review/learnings`), or (as
 * `/orgs/:orgId/review/learnings`) an organization's, drawn from the verdicts on its pull requests;
 * every member reads them, admin+ forgets one.
 */
const learningsRoutes: FastifyPluginAsyncZod<SpaceOptions> = async (app, options) => {
  const { feedback } = app.services;
  const org = options.space === 'organization';
  const tags = [org ? 'organizations' : 'review'];
  const readErrors = org ? ([400, 401, 404] as const) : ([400, 401] as const);
  const writeErrors = org ? ([400, 401, 403, 404] as const) : ([400, 401, 404] as const);
  resolveSpace(app, options);

  app.get(
    '/',
    {
      schema: {
        tags,
        summary: `${org ? "The organization's" : 'Your'} learnings (notes of findings marked wrong), of one repository with ?repo=owner/name`,
        ...orgIdOnly(options),
        querystring: learningsQuery,
        response: { 200: z.array(learningItem), ...errorResponses(...readErrors) },
      },
    },
    async (request) => {
      const rows = await feedback.learnings(spaceOf(request).owner, request.query.repo);
      return rows.map((row) => ({ id: row.id, repositoryName: row.repositoryName, note: row.note, findingTitle: row.findingTitle, createdAt: row.createdAt.toISOString() }));
    },
  );

  app.delete(
    '/:id',
    { schema: { tags, summary: `Forget a learning${org ? ' (admin+)' : ''}`, ...spaceParams(options, learningParams), response: { 204: noContent, ...errorResponses(...writeErrors) } } },
    async (request, reply) => {
      await feedback.deleteLearning(spaceOf(request).owner, request.params.id);
      return reply.code(204).send(null);
    },
  );
};

export default learningsRoutes;
