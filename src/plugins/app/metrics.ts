import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fp from 'fastify-plugin';
import { bearerMatches, ServiceMetrics } from '../../adapters/metrics/service-metrics.js';

/**
 * Metrics: the families (`app.metrics`, which services and workers count into), the HTTP timing of
 * every request (API roles), and with METRICS_PORT a listener of its own serving only `/metrics`,
 * for worker processes, which serve no HTTP otherwise. `GET /metrics` on the API is a route
 * (routes/metrics). Registered before the repositories and services, which count into it.
 */
export default fp(
  async (app) => {
    const { role, metrics: settings, host } = app.config;
    const metrics = new ServiceMetrics(app.queue);
    app.decorate('metrics', metrics);

    if (role !== 'worker') {
      app.addHook('onResponse', (request, reply, done) => {
        metrics.observeRequest(request.method, request.routeOptions.url, reply.statusCode, reply.elapsedTime);
        done();
      });
    }

    if (settings.token !== undefined && settings.port !== undefined) {
      const listener = metricsListener(metrics, settings.token, app.log);
      await new Promise<void>((resolve, reject) => {
        listener.once('error', reject);
        listener.listen(settings.port, host, () => resolve());
      });
      const { port } = listener.address() as AddressInfo;
      app.log.info({ port }, 'metrics listening');
      app.decorate('metricsPort', port);
      app.addHook('onClose', () => new Promise<void>((resolve) => listener.close(() => resolve())));
    }
  },
  { name: 'metrics', dependencies: ['infrastructure'] },
);

/** A bare HTTP server: `GET /metrics` with the bearer token, 401 without it, 404 for anything else. */
function metricsListener(metrics: ServiceMetrics, token: string, log: { error(object: object, message: string): void }): Server {
  return createServer((request, response) => {
    const answer = (status: number, body: string, type = 'application/json; charset=utf-8') => response.writeHead(status, { 'content-type': type }).end(body);
    if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') return answer(404, JSON.stringify({ statusCode: 404, error: 'Not Found', message: 'Not found' }));
    if (!bearerMatches(request.headers.authorization, token)) {
      return answer(401, JSON.stringify({ statusCode: 401, error: 'Unauthorized', message: 'A valid metrics bearer token is required' }));
    }
    metrics.scrape().then(
      (text) => answer(200, text, metrics.contentType),
      (error: unknown) => {
        log.error({ err: error }, 'metrics scrape failed');
        answer(500, JSON.stringify({ statusCode: 500, error: 'Internal Server Error', message: 'Internal server error' }));
      },
    );
  });
}
