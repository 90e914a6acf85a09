import { Readable } from 'node:stream';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireSession } from '../../plugins/app/authentication.js';
import { errorResponses } from '../common-schemas.js';
import { sendJsonText } from '../json-text.js';
import { chatBody, feedbackBody, historyBody, historyItem, historyParams, listQuery, threadItem } from './conversation-schemas.js';
import type { ChatEvent } from '../../services/conversation-service.js';

/** One JSON object per line, each written as soon as it exists. */
async function* ndjson(events: AsyncIterable<ChatEvent>): AsyncGenerator<string> {
  for await (const event of events) yield `${JSON.stringify(event)}\n`;
}

const conversationRoutes: FastifyPluginAsyncZod = async (app) => {
  const { conversations } = app.services;
  const tags = ['conversation'];

  app.post(
    '/chat',
    {
      schema: {
        tags,
        summary: 'Chat with a model about your pull requests (streamed NDJSON)',
        description:
          'A 200 answer streams one JSON object per line: `{conversationId}` first for a new thread, then `{type: "content", content}`, ' +
          '`{type: "tool-call", toolName, toolCallId, input}`, `{type: "tool-result", toolName, toolCallId, output}`, and `{type: "error", error}` ' +
          'if the answer fails after it began. Errors before the stream (402 allowance used up, 404 unknown thread or pull request) are JSON.',
        body: chatBody,
        response: { 200: z.unknown().meta({ description: 'application/x-ndjson: one event per line, as described above' }), ...errorResponses(400, 401, 402, 404, 503) },
      },
    },
    async (request, reply) => {
      const { userId } = requireSession(request);
      const controller = new AbortController();
      // A client that goes away before the end stops the model too.
      reply.raw.on('close', () => {
        if (!reply.raw.writableFinished) controller.abort();
      });
      const events = await conversations.open(userId, request.body, controller.signal);
      reply.header('content-type', 'application/x-ndjson; charset=utf-8').header('cache-control', 'no-store').header('x-accel-buffering', 'no');
      return reply.send(Readable.from(ndjson(events)));
    },
  );

  app.post(
    '/chat/:id',
    {
      schema: {
        tags,
        summary: 'Up to 100 messages of a thread, oldest first, created at or before updatedAt',
        params: historyParams,
        body: historyBody,
        response: { 200: z.array(historyItem), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => conversations.history(requireSession(request).userId, request.params.id, request.body.updatedAt),
  );

  app.get(
    '/',
    { schema: { tags, summary: 'Your 20 most recently updated threads, before lastUpdatedAt', querystring: listQuery, response: { 200: z.array(threadItem), ...errorResponses(400, 401) } } },
    async (request, reply) => sendJsonText(reply, await conversations.threads(requireSession(request).userId, request.query.lastUpdatedAt)),
  );

  app.patch(
    '/feedback',
    { schema: { tags, summary: 'Thumbs up or down on a message, or mark it regenerated', body: feedbackBody, response: { 202: z.object({ message: z.literal('updated') }), ...errorResponses(400, 401, 404) } } },
    async (request, reply) => {
      await conversations.feedback(requireSession(request).userId, request.body);
      return reply.code(202).send({ message: 'updated' as const });
    },
  );
};

export default conversationRoutes;
