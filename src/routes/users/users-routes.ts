import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireSession } from '../../plugins/app/authentication.js';
import { LEGACY_SESSION_COOKIE, clearSessionCookies } from '../../plugins/app/session-cookie.js';
import { errorResponses, noContent } from '../common-schemas.js';
import { profileResponse, updateUserBody, userResponse } from './users-schemas.js';

const usersRoutes: FastifyPluginAsyncZod = async (app) => {
  const { users } = app.services;
  const secure = app.config.publicUrl.startsWith('https:');
  const tags = ['users'];
  // A stolen API token must not take over the account (decisions.md §17).
  const sessionOnly = { apiTokens: 'refused' as const };

  app.get(
    '/',
    { schema: { tags, summary: 'Your profile', response: { 200: profileResponse, ...errorResponses(401) } } },
    async (request) => users.profile(requireSession(request).userId),
  );

  app.patch(
    '/',
    {
      config: sessionOnly,
      schema: { tags, summary: 'Update the profile (not with an API token)', body: updateUserBody, response: { 200: userResponse, ...errorResponses(400, 401, 403, 409) } },
    },
    async (request) => users.update(requireSession(request).userId, request.body),
  );

  app.delete(
    '/',
    { config: sessionOnly, schema: { tags, summary: 'Delete the account and all its data (not with an API token)', response: { 204: noContent, ...errorResponses(401, 403, 409, 503) } } },
    async (request, reply) => {
      await users.delete(requireSession(request).userId);
      clearSessionCookies(reply, secure, LEGACY_SESSION_COOKIE);
      return reply.code(204).send(null);
    },
  );
};

export default usersRoutes;
