import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { callerOf } from '../../plugins/app/authentication.js';
import { errorResponses } from '../common-schemas.js';
import { HOST_ROUTES } from '../../code-hosts/route-registry.js';
import { countedDelivery, header, WEBHOOK_BODY_LIMIT_BYTES } from './webhook-http.js';
import { webhookAcceptedResponse } from './webhook-schemas.js';


const webhookRoutes: FastifyPluginAsyncZod = async (app) => {
  const { webhook } = app.services;
  const tags = ['webhook'];

  // The signature covers the exact bytes GitHub sent, so this router keeps them beside the parsed body.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.decorateRequest('rawBody', null);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: WEBHOOK_BODY_LIMIT_BYTES }, (request, body, done) => {
    request.rawBody = body as Buffer;
    void parseJson(request, body.toString('utf8'), done);
  });

  app.get(
    '/',
    { config: { auth: 'public' }, schema: { tags, summary: 'The webhook listener is online', response: { 200: z.object({ message: z.string() }) } } },
    async () => ({ message: 'Webhook listener is online' }),
  );

  app.post(
    '/',
    {
      // GitHub's payload is data to keep: the service stores it raw and sanitizes what it derives.
      config: { auth: 'optional', rawStrings: true },
      bodyLimit: WEBHOOK_BODY_LIMIT_BYTES,
      schema: {
        tags,
        summary: 'Receive a GitHub pull_request event',
        description:
          'Authenticated by `x-hub-signature-256` (HMAC of the raw body with GITHUB_WEBHOOK_SECRET), or by a session for the ' +
          "caller's own pull requests. The event is named by `x-github-event` or `x-codehost-event`; `ping` answers 200.",
        headers: z.looseObject({
          'x-github-event': z.string().max(64).optional(),
          'x-codehost-event': z.string().max(64).optional(),
          'x-github-delivery': z.string().min(1).max(128).optional(),
          'x-hub-signature-256': z.string().max(128).optional(),
        }),
        response: { 200: webhookAcceptedResponse, ...errorResponses(400, 401, 403, 413, 415, 422, 500) },
      },
    },
    async (request) => {
      const { headers } = request;
      const event = header(headers['x-github-event']) ?? header(headers['x-codehost-event']);
      return countedDelivery(
        app.metrics,
        event,
        webhook.receive({
          event,
          deliveryId: header(headers['x-github-delivery']),
          signature: header(headers['x-hub-signature-256']),
          rawBody: request.rawBody ?? Buffer.alloc(0),
          payload: request.body,
          session: callerOf(request),
        }),
      );
    },
  );

  // Each host's own webhook routes, in this scope: they read the same raw bytes.
  for (const { webhook: hostWebhook } of HOST_ROUTES) if (hostWebhook !== undefined) await app.register(hostWebhook);
};

export default webhookRoutes;
