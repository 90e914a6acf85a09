import { Readable } from 'node:stream';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireSession } from '../../plugins/app/authentication.js';
import type { DiffReviewEvent } from '../../services/diff-review-service.js';
import { errorResponses, noContent } from '../common-schemas.js';
import {
  DIFF_REVIEW_BODY_LIMIT_BYTES,
  diffFindingParams,
  diffReviewBody,
  diffReviewList,
  diffReviewListQuery,
  diffReviewParams,
  diffReviewQueued,
  diffReviewState,
  diffVerdictBody,
} from './diff-review-schemas.js';

async function* ndjson(events: AsyncIterable<DiffReviewEvent>): AsyncGenerator<string> {
  for await (const event of events) yield `${JSON.stringify(event)}\n`;
}

/** Reviews of a diff sent by the command line or a script (decisions.md §17), with a session or an API token. */
const diffReviewRoutes: FastifyPluginAsyncZod = async (app) => {
  const { diffReviews } = app.services;
  const tags = ['review'];

  app.post(
    '/',
    {
      bodyLimit: DIFF_REVIEW_BODY_LIMIT_BYTES,
      schema: {
        tags,
        summary: 'Review a unified diff, with the head versions of changed and related files as code context',
        body: diffReviewBody,
        response: { 202: diffReviewQueued, ...errorResponses(400, 401, 404, 413, 500) },
      },
    },
    async (request, reply) => reply.code(202).send(await diffReviews.create(requireSession(request).userId, request.body)),
  );

  app.get(
    '/',
    { schema: { tags, summary: 'Your diff reviews, newest first', querystring: diffReviewListQuery, response: { 200: diffReviewList, ...errorResponses(400, 401) } } },
    async (request) => diffReviews.list(requireSession(request).userId, request.query.cursor),
  );

  app.get(
    '/:reviewId',
    { schema: { tags, summary: 'A diff review: its status, and the review once completed', params: diffReviewParams, response: { 200: diffReviewState, ...errorResponses(400, 401, 404) } } },
    async (request) => diffReviews.state(requireSession(request).userId, request.params.reviewId),
  );

  app.get(
    '/:reviewId/events',
    {
      schema: {
        tags,
        summary: 'A diff review’s events (streamed NDJSON)',
        description: 'One JSON object per line: `{type: "progress", done, total}` per chunk reviewed, then `{type: "completed", review}` or `{type: "failed", error}`. Replays what happened before it was opened; ends after the last event.',
        params: diffReviewParams,
        response: { 200: z.unknown().meta({ description: 'application/x-ndjson: one event per line' }), ...errorResponses(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const { userId } = requireSession(request);
      const controller = new AbortController();
      reply.raw.on('close', () => {
        if (!reply.raw.writableFinished) controller.abort();
      });
      const events = await diffReviews.events(userId, request.params.reviewId, controller.signal);
      reply.header('content-type', 'application/x-ndjson; charset=utf-8').header('cache-control', 'no-store').header('x-accel-buffering', 'no');
      return reply.send(Readable.from(ndjson(events)));
    },
  );

  app.patch(
    '/:reviewId/findings/:findingId',
    {
      schema: {
        tags,
        summary: 'Mark a diff review’s finding helpful, wrong or wontfix (teaches the review’s repository, if it names one)',
        params: diffFindingParams,
        body: diffVerdictBody,
        response: { 204: noContent, ...errorResponses(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const { reviewId, findingId } = request.params;
      await diffReviews.setVerdict({ userId: requireSession(request).userId, reviewId, findingId, ...request.body });
      return reply.code(204).send(null);
    },
  );
};

export default diffReviewRoutes;
