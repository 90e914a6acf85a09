import type { FastifyError } from 'fastify';
import fp from 'fastify-plugin';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { isUnavailable } from '../../db/errors.js';
import { AppError, errorBody } from '../../lib/app-error.js';
import { drainBody, type DrainBounds } from '../../lib/drain-body.js';

/**
 * How much of an oversized body is read before its 413 (see `drainBody`): a webhook just over its
 * 25 MB limit still gets its answer; beyond this, the connection is closed as Fastify does.
 */
export const OVERSIZED_BODY_DRAIN: DrainBounds = { maxBytes: 32 * 1024 * 1024, timeoutMs: 5_000 };

/**
 * Every error leaves in decisions.md §4's shape. Client errors keep their message; anything else
 * is logged here and answered with a generic message, so no stack, SQL or secret leaves.
 */
export default fp(
  async (app) => {
    app.setErrorHandler((error: FastifyError | AppError, request, reply) => {
      if (error instanceof AppError) return reply.code(error.statusCode).send(error.toBody());

      if (hasZodFastifySchemaValidationErrors(error)) {
        const context = error.validationContext ?? 'request';
        const details = error.validation.map((issue) => ({
          path: [context, ...issue.instancePath.split('/').filter(Boolean)].join('.'),
          message: issue.message ?? 'is invalid',
        }));
        const first = details[0]!;
        const subject = first.path === context ? '' : `${first.path} `;
        return reply.code(400).send(errorBody(400, `Invalid ${context}: ${subject}${first.message}`, details));
      }

      if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
        // Fastify refuses before reading the body and asks to close the connection: read the rest
        // first, so the 413 arrives instead of a reset, and keep the connection when it was read whole.
        return drainBody(request.raw, OVERSIZED_BODY_DRAIN).then((whole) => {
          if (whole) reply.removeHeader('connection');
          reply.code(413).send(errorBody(413, error.message));
        });
      }

      if (isUnavailable(error)) {
        request.log.error({ err: loggable(error) }, 'a dependency is unavailable');
        return reply.code(503).send(errorBody(503, 'A service dependency is unavailable; try again shortly'));
      }

      const status = error.statusCode ?? 500;
      if (status >= 400 && status < 500 && !isResponseSerializationError(error)) {
        // Fastify's own client errors (malformed JSON, body too large, bad media type): safe to show.
        return reply.code(status).send(errorBody(status, error.message));
      }

      request.log.error({ err: loggable(error) }, 'request failed');
      return reply.code(500).send(errorBody(500, 'Something went wrong on our side'));
    });

    app.setNotFoundHandler((request, reply) => {
      reply.code(404).send(errorBody(404, `Route ${request.method} ${request.url.split('?')[0]} not found`));
    });
  },
  { name: 'error-handler' },
);

/** Database errors carry the query's parameters in their message; log the query and cause only. */
function loggable(error: Error): unknown {
  if (error.name === 'DrizzleQueryError') {
    const { query, cause } = error as Error & { query?: string };
    return { type: error.name, query, cause: cause instanceof Error ? { message: cause.message, code: (cause as { code?: string }).code } : undefined };
  }
  return error;
}
