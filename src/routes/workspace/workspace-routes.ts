import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '../../lib/app-error.js';
import { errorResponses, noContent } from '../common-schemas.js';
import { resolveSpace, spaceOf, spaceParams, type SpaceOptions } from '../spaces.js';
import { settingsBody, settingsPatchBody, settingsResponse, tabParams } from './workspace-schemas.js';

const AI_SETTINGS = 'aiSettings';

/** Per-mode review models and prompts, tab `aiSettings`: the caller's own, or (as `/orgs/:orgId/workspace`) an organization's. */
const workspaceRoutes: FastifyPluginAsyncZod<SpaceOptions> = async (app, options) => {
  const { workspace } = app.services;
  const org = options.space === 'organization';
  const tags = [org ? 'organizations' : 'workspace'];
  const whose = org ? "The organization's" : 'Your';
  const errors = org ? ([401, 403, 404] as const) : ([401, 404] as const);
  resolveSpace(app, options);

  // Another tab is a 404 whatever the body (a no-op PATCH body would otherwise be a 400 first).
  app.addHook('preValidation', async (request) => {
    const { tab } = request.params as { tab: string };
    if (tab !== AI_SETTINGS) throw new AppError('NOT_FOUND', `No workspace tab "${tab}"; the tab is ${AI_SETTINGS}`);
  });

  app.get(
    '/:tab',
    { schema: { tags, summary: `${whose} review settings (an array of at most one record)`, ...spaceParams(options, tabParams), response: { 200: settingsResponse, ...errorResponses(401, 404) } } },
    async (request) => workspace.get(spaceOf(request).owner),
  );

  app.post(
    '/:tab',
    {
      schema: {
        tags,
        summary: `Create ${whose.toLowerCase()} review settings${org ? ' (admin+)' : ''}`,
        ...spaceParams(options, tabParams),
        body: settingsBody,
        response: { 201: z.object({ message: z.string() }), ...errorResponses(400, ...errors, 409) },
      },
    },
    async (request, reply) => {
      await workspace.create(spaceOf(request), request.body);
      return reply.code(201).send({ message: 'Resource created successfully' });
    },
  );

  app.patch(
    '/:tab',
    {
      schema: {
        tags,
        summary: `Change only the fields sent (null clears one)${org ? '; admin+' : ''}`,
        ...spaceParams(options, tabParams),
        body: settingsPatchBody,
        response: { 204: noContent, ...errorResponses(400, ...errors) },
      },
    },
    async (request, reply) => {
      await workspace.patch(spaceOf(request), request.body);
      return reply.code(204).send(null);
    },
  );
};

export default workspaceRoutes;
