import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorResponses } from '../common-schemas.js';
import { githubAppStatusResponse, manifestBody, manifestCallbackQuery, manifestResponse } from './admin-schemas.js';

const redirect = z.null().meta({ description: 'Redirect (Location header)' });
// Anyone but an operator gets a 404, with or without a session, and any API token (decisions.md §13, §17).
const operatorOnly = { auth: 'optional' as const, apiTokens: 'hidden' as const };

/** The operator's surface (decisions.md §13): the GitHub App's status, and creating it from a manifest. */
const adminRoutes: FastifyPluginAsyncZod = async (app) => {
  const { githubAppSetup } = app.services;
  const tags = ['admin'];

  // Before validation, so a non-operator's malformed request is the same 404 as any other.
  app.addHook('preValidation', async (request) => githubAppSetup.requireOperator(request.session?.userId));

  app.get(
    '/admin/github-app',
    { config: operatorOnly, schema: { tags, summary: 'The GitHub App in use and where its credentials come from (operators)', response: { 200: githubAppStatusResponse, ...errorResponses(404) } } },
    async () => githubAppSetup.status(),
  );

  app.post(
    '/admin/github-app/manifest',
    {
      config: operatorOnly,
      schema: {
        tags,
        summary: "Start creating the GitHub App through GitHub's manifest flow (operators)",
        body: manifestBody,
        response: { 200: manifestResponse, ...errorResponses(400, 404, 409) },
      },
    },
    async (request) => githubAppSetup.manifest(request.session!.userId, request.body.organization),
  );

  app.get(
    '/github/app-manifest/callback',
    {
      config: operatorOnly,
      schema: {
        tags,
        summary: 'GitHub returns here with the new App: its credentials are stored, then to /settings/github (operators)',
        querystring: manifestCallbackQuery,
        response: { 302: redirect, ...errorResponses(400, 404, 409, 503) },
      },
    },
    async (request, reply) => {
      await githubAppSetup.complete(request.session!.userId, request.query);
      return reply.redirect('/settings/github', 302);
    },
  );
};

export default adminRoutes;
