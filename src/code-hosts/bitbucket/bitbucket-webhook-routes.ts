import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorResponses } from '../../routes/common-schemas.js';
import { countedDelivery, header, WEBHOOK_BODY_LIMIT_BYTES } from '../../routes/webhook/webhook-http.js';
import { webhookAcceptedResponse } from '../../routes/webhook/webhook-schemas.js';

/** `POST /webhook/bitbucket`, registered inside the webhook router's scope, which keeps the raw body. */
const bitbucketWebhookRoutes: FastifyPluginAsyncZod = async (app) => {
  const { bitbucketWebhook } = app.services;

  app.post(
    '/bitbucket',
    {
      config: { auth: 'public', rawStrings: true },
      bodyLimit: WEBHOOK_BODY_LIMIT_BYTES,
      schema: {
        tags: ['webhook'],
        summary: 'Receive a Bitbucket Cloud pull request or comment event',
        description:
          "Authenticated by `X-Hub-Signature` (`sha256=` + the HMAC-SHA256 of the raw body keyed by the secret of the webhook the service created for a connection of the payload's repository). " +
          'Idempotent by `X-Request-UUID`. `pullrequest:created`, `:updated`, `:fulfilled`, `:rejected` and `:comment_created` only; any other event is a 422.',
        headers: z.looseObject({
          'x-event-key': z.string().max(64).optional(),
          'x-hub-signature': z.string().max(128).optional(),
          'x-request-uuid': z.string().min(1).max(64).optional(),
          'x-attempt-number': z.string().max(8).optional(),
        }),
        response: { 200: webhookAcceptedResponse, ...errorResponses(400, 401, 413, 415, 422, 500, 503) },
      },
    },
    async (request) => {
      const { headers } = request;
      const event = header(headers['x-event-key']);
      return countedDelivery(
        app.metrics,
        event,
        bitbucketWebhook.receive({
          eventKey: event,
          signature: header(headers['x-hub-signature']),
          requestUuid: header(headers['x-request-uuid']),
          rawBody: request.rawBody ?? Buffer.alloc(0),
          payload: request.body,
        }),
      );
    },
  );
};

export default bitbucketWebhookRoutes;
