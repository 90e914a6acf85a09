import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireSession } from '../../plugins/app/authentication.js';
import { errorResponses } from '../common-schemas.js';
import { organizationResponse } from '../orgs/orgs-schemas.js';
import { acceptBody, previewResponse, tokenParams } from './invitations-schemas.js';

/** The invitee's side (decisions.md §15). Tokens are secrets: the request log redacts them (logger-options.ts). */
const invitationsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { invitations } = app.services;
  const tags = ['organizations'];

  app.get(
    '/:token',
    {
      config: { auth: 'public' },
      schema: { tags, summary: 'What an invitation is for (the token is the credential)', params: tokenParams, response: { 200: previewResponse, ...errorResponses(404, 410) } },
    },
    async (request) => invitations.preview(request.params.token),
  );

  app.post(
    '/accept',
    {
      schema: {
        tags,
        summary: 'Accept an invitation with the account its email was sent to',
        body: acceptBody,
        response: { 200: organizationResponse, ...errorResponses(400, 401, 403, 404, 409, 410) },
      },
    },
    async (request) => invitations.accept(request.body.token, requireSession(request).userId),
  );
};

export default invitationsRoutes;
