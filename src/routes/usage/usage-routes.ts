import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireSession } from '../../plugins/app/authentication.js';
import { AppError } from '../../lib/app-error.js';
import { errorResponses } from '../common-schemas.js';

const usageResponse = z.object({ utilizedCost: z.number(), allowedExpenditureLimit: z.number() });

const usageRoutes: FastifyPluginAsyncZod = async (app) => {
  const { usage } = app.services;
  const tags = ['usage'];

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
