import type { FastifyPluginAsync } from 'fastify';
import { bearerMatches } from '../../adapters/metrics/service-metrics.js';
import { AppError } from '../../lib/app-error.js';

/**
 * `GET /metrics` in Prometheus' text format, for a scraper that sends `Authorization: Bearer
 * METRICS_TOKEN`. Without METRICS_TOKEN the route does not exist (404, like any unknown path).
 * The session check is not this route's: a scraper has no session, it has the token.
 */
const metricsRoutes: FastifyPluginAsync = async (app) => {
  const { token } = app.config.metrics;
  if (token === undefined) return;
  app.get('/metrics', { config: { auth: 'public' }, schema: { hide: true } }, async (request, reply) => {
    if (!bearerMatches(request.headers.authorization, token)) throw new AppError('UNAUTHORIZED', 'A valid metrics bearer token is required');
    return reply.type(app.metrics.contentType).send(await app.metrics.scrape());
  });
};

export default metricsRoutes;
