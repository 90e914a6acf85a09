import type { Redis } from 'ioredis';
import type { ServiceMetrics } from '../adapters/metrics/service-metrics.js';
import type { GitHubClient } from '../adapters/github/github-client.js';
import type { KeyValueStore } from '../adapters/kv/key-value-store.js';
import type { Mailer } from '../adapters/mail/mailer.js';
import type { JobQueue } from '../adapters/queue/job-queue.js';
import type { AppConfig } from '../config/config.js';
import type { Database, DatabaseHandle } from '../db/database.js';
import type { SecretBox } from '../lib/crypto/secret-box.js';
import type { Repositories } from '../plugins/app/repositories.js';
import type { Services } from '../plugins/app/services.js';
import type { GitHubAppRegistry } from '../services/github-app-registry.js';
import type { ApiTokenInfo } from '../services/api-token-service.js';
import type { SessionInfo } from '../services/session-service.js';

declare module 'fastify' {
  interface FastifyInstance {
    config: AppConfig;
    database: DatabaseHandle;
    db: Database;
    redis: Redis | undefined;
    kv: KeyValueStore;
    queue: JobQueue;
    mailer: Mailer;
    secretBox: SecretBox;
    github: GitHubClient;
    /** The GitHub App in use (decisions.md §8 and §13): from GITHUB_APP_*, else the one the manifest flow stored. */
    githubApps: GitHubAppRegistry;
    repos: Repositories;
    services: Services;
    authRateLimit: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
    metrics: ServiceMetrics;
    /** The port of the metrics listener, when METRICS_PORT is set. */
    metricsPort?: number;
  }

  interface FastifyRequest {
    /** The cookie session, set by the authentication hook; null on public routes, anonymous optional ones and token requests. */
    session: SessionInfo | null;
    /** The `Authorization: Bearer` API token of the request (decisions.md §17), when it carried one. */
    apiToken: ApiTokenInfo | null;
    /** The exact request bytes, kept by the webhook router for signature checks. */
    rawBody: Buffer | null;
  }

  interface FastifyContextConfig {
    /** Routes need a session unless they say `public` (no session read) or `optional`. */
    auth?: 'public' | 'optional' | 'required';
    /**
     * What an API token gets here (decisions.md §17): `accepted` (the default) as a session,
     * `refused` a 403 (account, password, tokens), `hidden` a 404 (operators' routes).
     */
    apiTokens?: 'accepted' | 'refused' | 'hidden';
    /** The body may hold NUL and unpaired surrogates (decisions.md §7): the route sanitizes it itself. */
    rawStrings?: boolean;
  }
}
