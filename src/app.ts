import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import fp from 'fastify-plugin';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { AppConfig } from './config/config.js';
import authRateLimit from './plugins/app/auth-rate-limit.js';
import authentication from './plugins/app/authentication.js';
import errorHandler from './plugins/app/error-handler.js';
import httpSecurity from './plugins/app/http-security.js';
import inputHygiene from './plugins/app/input-hygiene.js';
import jsonBody from './plugins/app/json-body.js';
import metrics from './plugins/app/metrics.js';
import openapi from './plugins/app/openapi.js';
import repositories from './plugins/app/repositories.js';
import services from './plugins/app/services.js';
import webApp from './plugins/app/web-app.js';
import workers, { type WorkerOptions } from './plugins/app/workers.js';
import infrastructure, { type InfrastructureOptions } from './plugins/external/infrastructure.js';
import adminRoutes from './routes/admin/admin-routes.js';
import apiTokenRoutes from './routes/auth/api-token-routes.js';
import authRoutes from './routes/auth/auth-routes.js';
import byokRoutes from './routes/byok/byok-routes.js';
import conversationRoutes from './routes/conversation/conversation-routes.js';
import codehostRoutes from './routes/auth/codehost-routes.js';
import { HOST_ROUTES } from './code-hosts/route-registry.js';
import healthRoutes from './routes/health/health-routes.js';
import metricsRoutes from './routes/metrics/metrics-routes.js';
import usageRoutes from './routes/usage/usage-routes.js';
import pullRequestsRoutes from './routes/pull-requests/pull-requests-routes.js';
import reviewRoutes from './routes/review/review-routes.js';
import learningsRoutes from './routes/review/learnings-routes.js';
import diffReviewRoutes from './routes/review/diff-review-routes.js';
import orgsRoutes from './routes/orgs/orgs-routes.js';
import invitationsRoutes from './routes/invitations/invitations-routes.js';
import usersRoutes from './routes/users/users-routes.js';
import webhookRoutes from './routes/webhook/webhook-routes.js';
import workspaceRoutes from './routes/workspace/workspace-routes.js';
import { loggerOptions } from './lib/logger-options.js';
import { OneLinePerRequest } from './lib/request-log.js';

export interface AppOptions {
  config: AppConfig;
  infrastructure?: InfrastructureOptions;
  workers?: WorkerOptions;
  /** The built web app's folder (default `web/dist`). */
  webDistDir?: string;
}

export const BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * The service as a Fastify plugin, in tiers: infrastructure, then repositories and services, then
 * the HTTP surface and routes (API role) and the queue workers (worker role).
 */
export const serviceApp = fp<AppOptions>(
  async (app, options) => {
    const { role } = options.config;
    await app.register(infrastructure, options);
    await app.register(metrics);
    await app.register(repositories);
    await app.register(services);

    if (role === 'api' || role === 'all') {
      app.setValidatorCompiler(validatorCompiler);
      app.setSerializerCompiler(serializerCompiler);
      await app.register(errorHandler);
      await app.register(jsonBody);
      await app.register(httpSecurity);
      await app.register(inputHygiene);
      await app.register(openapi);
      await app.register(authRateLimit);
      // Before authentication: its page hook answers a browser's load of a page the API shares a path with.
      await app.register(webApp, { distDir: options.webDistDir });
      await app.register(authentication);

      await app.register(healthRoutes);
      await app.register(metricsRoutes);
      await app.register(authRoutes, { prefix: '/auth' });
      await app.register(codehostRoutes, { prefix: '/auth' });
      await app.register(apiTokenRoutes, { prefix: '/auth' });
      await app.register(usersRoutes, { prefix: '/users' });
      await app.register(usageRoutes, { prefix: '/usage', space: 'personal' });
      await app.register(webhookRoutes, { prefix: '/webhook' });
      await app.register(pullRequestsRoutes, { prefix: '/pull-request' });
      await app.register(byokRoutes, { prefix: '/byok', space: 'personal' });
      await app.register(reviewRoutes, { prefix: '/review' });
      await app.register(learningsRoutes, { prefix: '/review/learnings', space: 'personal' });
      await app.register(diffReviewRoutes, { prefix: '/review/diff' });
      await app.register(conversationRoutes, { prefix: '/conversation' });
      await app.register(workspaceRoutes, { prefix: '/workspace', space: 'personal' });
      await app.register(orgsRoutes, { prefix: '/orgs' });
      // The organization's twins of the four above: the same routers over its settings, keys, usage and learnings (decisions.md §15).
      await app.register(workspaceRoutes, { prefix: '/orgs/:orgId/workspace', space: 'organization' });
      await app.register(byokRoutes, { prefix: '/orgs/:orgId/byok', space: 'organization' });
      await app.register(usageRoutes, { prefix: '/orgs/:orgId/usage', space: 'organization' });
      await app.register(learningsRoutes, { prefix: '/orgs/:orgId/review/learnings', space: 'organization' });
      await app.register(invitationsRoutes, { prefix: '/invitations' });
      for (const host of HOST_ROUTES) await app.register(host.routes, { prefix: host.prefix });
      await app.register(adminRoutes);
      if ((await app.githubApps.webhookSecret()) === undefined) {
        app.log.warn('GITHUB_WEBHOOK_SECRET is not set: unsigned webhook deliveries are accepted (development only)');
      }
    }

    if (role === 'worker' || role === 'all') await app.register(workers, options.workers ?? {});
  },
  { name: 'service-app' },
);

export function fastifyOptions(config: AppConfig, logger: FastifyServerOptions['logger'] = loggerOptions(config.logLevel)): FastifyServerOptions {
  return {
    logger,
    bodyLimit: BODY_LIMIT_BYTES,
    // Behind a load balancer, TRUST_PROXY lets rate limits see client addresses.
    trustProxy: config.trustProxy,
    // Request ids are generated here, never taken from a client header.
    requestIdHeader: false,
    logController: new OneLinePerRequest(),
    // Start waits for the database however long its migrations take (progress is logged); only a
    // real error stops it, never Fastify's 10 s default.
    pluginTimeout: 0,
  };
}

/** Builds the whole service, ready but not listening. */
export async function buildApp(options: AppOptions, serverOptions: FastifyServerOptions = fastifyOptions(options.config)): Promise<FastifyInstance> {
  const app = Fastify(serverOptions);
  await app.register(serviceApp, options);
  await app.ready();
  return app;
}
