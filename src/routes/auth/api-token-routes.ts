import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireSession } from '../../plugins/app/authentication.js';
import { errorResponses, noContent } from '../common-schemas.js';
import { createdTokenResponse, createTokenBody, tokenParams, tokensResponse } from './api-token-schemas.js';

/** Personal API tokens (decisions.md §17), managed with a session only: a token cannot mint or list tokens. */
const apiTokenRoutes: FastifyPluginAsyncZod = async (app) => {
  const { apiTokens } = app.services;
  const tags = ['auth'];
  const config = { apiTokens: 'refused' as const };

  app.post(
    '/tokens',
    {
      config,
      schema: {
        tags,
        summary: 'Create a personal API token (shown once) for `Authorization: Bearer`',
        body: createTokenBody,
        response: { 201: createdTokenResponse, ...errorResponses(400, 401, 403, 409) },
      },
    },
    async (request, reply) => reply.code(201).send(await apiTokens.create(requireSession(request).userId, request.body)),
  );

  app.get(
    '/tokens',
    { config, schema: { tags, summary: 'Your unexpired API tokens (never the tokens themselves)', response: { 200: tokensResponse, ...errorResponses(401, 403) } } },
    async (request) => apiTokens.list(requireSession(request).userId),
  );

  app.delete(
    '/tokens/:id',
    { config, schema: { tags, summary: 'Revoke an API token, at once', params: tokenParams, response: { 204: noContent, ...errorResponses(400, 401, 403, 404, 503) } } },
    async (request, reply) => {
      await apiTokens.revoke(requireSession(request).userId, request.params.id);
      return reply.code(204).send(null);
    },
  );
};

export default apiTokenRoutes;
