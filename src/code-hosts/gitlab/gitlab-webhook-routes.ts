import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorResponses } from '../../routes/common-schemas.js';
import { countedDelivery, header, WEBHOOK_BODY_LIMIT_BYTES } from '../../routes/webhook/webhook-http.js';
import { webhookAcceptedResponse } from '../../routes/webhook/webhook-schemas.js';

/** `POST /webhook/gitlab`, registered inside the webhook router's scope, which keeps the raw body. */
const gitlabWebhookRoutes: FastifyPluginAsyncZod = async (app) => {
  const { gitlabWebhook } = app.services;
  const tags = ['webhook'];

  app.post(
    '/gitlab',
    {
      config: { auth: 'public', rawStrings: true },
      bodyLimit: WEBHOOK_BODY_LIMIT_BYTES,
      schema: {
        tags,
        summary: 'Receive a GitLab merge request or note event',
        description:
          "Authenticated by `X-Gitlab-Token`, the secret of the webhook the service created for a connection of the payload's project. " +
          'Idempotent by `Idempotency-Key`, else `X-Gitlab-Event-UUID`. `Merge Request Hook` and `Note Hook` only; any other event is a 422.',
        headers: z.looseObject({
          'x-gitlab-event': z.string().max(64).optional(),
          'x-gitlab-token': z.string().max(256).optional(),
          'idempotency-key': z.string().min(1).max(256).optional(),
          'x-gitlab-event-uuid': z.string().min(1).max(128).optional(),
        }),
        response: { 200: webhookAcceptedResponse, ...errorResponses(400, 401, 413, 415, 422, 500) },
      },
    },
    async (request) => {
      const { headers } = request;
      const event = header(headers['x-gitlab-event']);
      return countedDelivery(
        app.metrics,
        event,
        gitlabWebhook.receive({
          event,
          token: header(headers['x-gitlab-token']),
          idempotencyKey: header(headers['idempotency-key']),
          eventUuid: header(headers['x-gitlab-event-uuid']),
          rawBody: request.rawBody ?? Buffer.alloc(0),
          payload: request.body,
        }),
      );
    },
  );
};

export default gitlabWebhookRoutes;
