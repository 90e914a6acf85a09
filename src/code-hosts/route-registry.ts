import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { HostKind } from '../domain/host-kinds.js';
import bitbucketRoutes from './bitbucket/bitbucket-routes.js';
import bitbucketWebhookRoutes from './bitbucket/bitbucket-webhook-routes.js';
import githubRoutes from './github/github-routes.js';
import gitlabWebhookRoutes from './gitlab/gitlab-webhook-routes.js';
import gitlabRoutes from './gitlab/gitlab-routes.js';

export interface HostRoutes {
  kind: HostKind;
  /** The host's own router (settings, connections), under `prefix`. */
  prefix: string;
  routes: FastifyPluginAsyncZod;
  /** The host's webhook route(s), registered under `/webhook` beside GitHub's, with the raw body kept. */
  webhook?: FastifyPluginAsyncZod;
}

/**
 * The hosts' HTTP routes, one entry per host: the routes floor's half of the registry
 * (`registry.ts` holds the rest; routes sit above the services they call, so they cannot share its file).
 */
export const HOST_ROUTES: readonly HostRoutes[] = [
  { kind: 'github', prefix: '/github', routes: githubRoutes },
  { kind: 'gitlab', prefix: '/gitlab', routes: gitlabRoutes, webhook: gitlabWebhookRoutes },
  { kind: 'bitbucket', prefix: '/bitbucket', routes: bitbucketRoutes, webhook: bitbucketWebhookRoutes },
];
