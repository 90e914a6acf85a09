import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireSession } from '../../plugins/app/authentication.js';
import { errorResponses, noContent } from '../common-schemas.js';
import {
  modelListResponse,
  patchByIdBody,
  patchByNameBody,
  patchedResponse,
  probeBody,
  probeResponse,
  providerCardResponse,
  providerParams,
  providerResponse,
  registerBody,
  registeredResponse,
} from './byok-schemas.js';

const byokRoutes: FastifyPluginAsyncZod = async (app) => {
  const { byok } = app.services;
  const tags = ['byok'];

  app.get('/', { schema: { tags, summary: 'Your provider keys (never the keys themselves)', response: { 200: z.array(providerResponse), ...errorResponses(401) } } }, async (request) =>
    byok.list(requireSession(request).userId),
  );

  app.post(
    '/',
    {
      schema: {
        tags,
        summary: 'Register a provider key, or update the provider of that name',
        description: 'The key is checked against the provider’s model list before it is stored. An apiKey made only of • characters keeps the stored key.',
        body: registerBody,
        response: { 200: registeredResponse, 201: registeredResponse, ...errorResponses(400, 401, 409, 503) },
      },
    },
    async (request, reply) => {
      const result = await byok.register(requireSession(request).userId, request.body);
      return reply.code(result.created ? 201 : 200).send({ message: result.created ? 'Provider added' : 'Provider updated', id: result.id, models: result.models });
    },
  );

  app.post(
    '/model-list',
    {
      schema: {
        tags,
        summary: 'Probe a key for its models without storing it; the platform entry follows',
        body: probeBody,
        response: { 200: probeResponse, ...errorResponses(400, 401, 503) },
      },
    },
    async (request) => {
      requireSession(request);
      const models = await byok.probe(request.body);
      return { byokModels: [...models, byok.platformEntry()] };
    },
  );

  app.get(
    '/model-list',
    { schema: { tags, summary: 'Models of your enabled providers, then the platform entry', response: { 200: modelListResponse, ...errorResponses(401, 503) } } },
    async (request) => byok.modelList(requireSession(request).userId),
  );

  app.get(
    '/providers',
    { schema: { tags, summary: 'Your providers as connection cards', response: { 200: z.array(providerCardResponse), ...errorResponses(401) } } },
    async (request) => byok.cards(requireSession(request).userId),
  );

  const patchSchema = { tags, response: { 200: patchedResponse, ...errorResponses(400, 401, 404, 409) } };
  app.patch(
    '/providers/:providerId',
    { schema: { ...patchSchema, summary: 'Change a provider (by id, or by provider name)', params: providerParams, body: patchByIdBody } },
    async (request) => ({ message: 'Provider updated', provider: await byok.patch(requireSession(request).userId, request.params.providerId, request.body) }),
  );
  app.patch(
    '/providers',
    { schema: { ...patchSchema, summary: 'Change the provider named by modelProviderName in the body', body: patchByNameBody } },
    async (request) => ({ message: 'Provider updated', provider: await byok.patch(requireSession(request).userId, undefined, request.body) }),
  );

  app.delete(
    '/providers/:providerId',
    { schema: { tags, summary: 'Delete a provider (by id, or by provider name)', params: providerParams, response: { 204: noContent, ...errorResponses(401, 404) } } },
    async (request, reply) => {
      await byok.remove(requireSession(request).userId, request.params.providerId);
      return reply.code(204).send(null);
    },
  );
};

export default byokRoutes;
