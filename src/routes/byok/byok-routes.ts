import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorResponses, noContent } from '../common-schemas.js';
import { orgIdOnly, resolveSpace, spaceOf, spaceParams, type SpaceOptions } from '../spaces.js';
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

/**
 * Provider keys: the caller's own, or (as `/orgs/:orgId/byok`) an organization's, which every
 * member may list (never the keys themselves) and admins change.
 */
const byokRoutes: FastifyPluginAsyncZod<SpaceOptions> = async (app, options) => {
  const { byok } = app.services;
  const org = options.space === 'organization';
  const tags = [org ? 'organizations' : 'byok'];
  const whose = org ? "The organization's" : 'Your';
  // A write by a member is a 403 in an organization.
  const forbidden = org ? [403] : [];
  const params = orgIdOnly(options);
  resolveSpace(app, options);

  app.get(
    '/',
    { schema: { tags, summary: `${whose} provider keys (never the keys themselves)`, ...params, response: { 200: z.array(providerResponse), ...errorResponses(401, ...forbidden) } } },
    async (request) => byok.list(spaceOf(request).owner),
  );

  app.post(
    '/',
    {
      schema: {
        tags,
        summary: 'Register a provider key, or update the provider of that name',
        description: 'The key is checked against the provider’s model list before it is stored. An apiKey made only of • characters keeps the stored key.',
        ...params,
        body: registerBody,
        response: { 200: registeredResponse, 201: registeredResponse, ...errorResponses(400, 401, ...forbidden, 409, 503) },
      },
    },
    async (request, reply) => {
      const result = await byok.register(spaceOf(request), request.body);
      return reply.code(result.created ? 201 : 200).send({ message: result.created ? 'Provider added' : 'Provider updated', id: result.id, models: result.models });
    },
  );

  app.post(
    '/model-list',
    {
      schema: {
        tags,
        summary: 'Probe a key for its models without storing it; the platform entry follows',
        ...params,
        body: probeBody,
        response: { 200: probeResponse, ...errorResponses(400, 401, ...forbidden, 503) },
      },
    },
    async (request) => {
      const models = await byok.probe(request.body);
      return { byokModels: [...models, byok.platformEntry()] };
    },
  );

  app.get(
    '/model-list',
    { schema: { tags, summary: `Models of ${whose.toLowerCase()} enabled providers, then the platform entry`, ...params, response: { 200: modelListResponse, ...errorResponses(401, 503) } } },
    async (request) => byok.modelList(spaceOf(request).owner),
  );

  app.get(
    '/providers',
    { schema: { tags, summary: `${whose} providers as connection cards`, ...params, response: { 200: z.array(providerCardResponse), ...errorResponses(401) } } },
    async (request) => byok.cards(spaceOf(request).owner),
  );

  const patchSchema = { tags, response: { 200: patchedResponse, ...errorResponses(400, 401, ...forbidden, 404, 409) } };
  app.patch(
    '/providers/:providerId',
    { schema: { ...patchSchema, summary: 'Change a provider (by id, or by provider name)', ...spaceParams(options, providerParams), body: patchByIdBody } },
    async (request) => ({ message: 'Provider updated', provider: await byok.patch(spaceOf(request), request.params.providerId, request.body) }),
  );
  app.patch(
    '/providers',
    { schema: { ...patchSchema, summary: 'Change the provider named by modelProviderName in the body', ...params, body: patchByNameBody } },
    async (request) => ({ message: 'Provider updated', provider: await byok.patch(spaceOf(request), undefined, request.body) }),
  );

  app.delete(
    '/providers/:providerId',
    { schema: { tags, summary: 'Delete a provider (by id, or by provider name)', ...spaceParams(options, providerParams), response: { 204: noContent, ...errorResponses(401, ...forbidden, 404) } } },
    async (request, reply) => {
      await byok.remove(spaceOf(request), request.params.providerId);
      return reply.code(204).send(null);
    },
  );
};

export default byokRoutes;
