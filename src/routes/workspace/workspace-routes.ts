import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '../../lib/app-error.js';
import { requireSession } from '../../plugins/app/authentication.js';
import { errorResponses, noContent } from '../common-schemas.js';
import { settingsBody, settingsPatchBody, settingsResponse, tabParams } from './workspace-schemas.js';

const AI_SETTINGS = 'aiSettings';


/** Per-mode review models and prompts, tab `aiSettings`. */
const workspaceRoutes: FastifyPluginAsyncZod = async (app) => {
  const { workspace } = app.services;
  const tags = ['workspace'];

  // Another tab is a 404 whatever the body (a no-op PATCH body would otherwise be a 400 first).
  app.addHook('preValidation', async (request) => {
    const { tab } = request.params as { tab: string };
    if (tab !== AI_SETTINGS) throw new AppError('NOT_FOUND', `No workspace tab "${tab}"; the tab is ${AI_SETTINGS}`);
  });

  app.get(
    '/:tab',
    { schema: { tags, summary: 'Your review settings (an array of at most one record)', params: tabParams, response: { 200: settingsResponse, ...errorResponses(401, 404) } } },
    async (request) => {
      return workspace.get(requireSession(request).userId);
    },
  );

  app.post(
    '/:tab',
    {
      schema: {
        tags,
        summary: 'Create your review settings',
        params: tabParams,
        body: settingsBody,
        response: { 201: z.object({ message: z.string() }), ...errorResponses(400, 401, 404, 409) },
      },
    },
    async (request, reply) => {
      await workspace.create(requireSession(request).userId, request.body);
      return reply.code(201).send({ message: 'Resource created successfully' });
    },
  );

  app.patch(
    '/:tab',
    {
      schema: {
        tags,
        summary: 'Change only the fields sent (null clears one)',
        params: tabParams,
        body: settingsPatchBody,
        response: { 204: noContent, ...errorResponses(400, 401, 404) },
      },
    },
    async (request, reply) => {
      await workspace.patch(requireSession(request).userId, request.body);
      return reply.code(204).send(null);
    },
  );
};

export default workspaceRoutes;
