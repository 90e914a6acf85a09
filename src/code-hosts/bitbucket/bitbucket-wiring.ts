import type { KeyValueStore } from '../../adapters/kv/key-value-store.js';
import type { JobQueue } from '../../adapters/queue/job-queue.js';
import type { Database } from '../../db/database.js';
import type { SecretBox } from '../../lib/crypto/secret-box.js';
import type { Logger } from '../../lib/logger.js';
import type { PublicationRepository } from '../../repositories/publication-repository.js';
import type { PullRequestRepository } from '../../repositories/pull-request-repository.js';
import type { OrganizationDeletionStep, OrganizationDepartureStep } from '../../services/organization-service.js';
import type { OrgAccess } from '../../services/org-access.js';
import type { OwnershipMoves } from '../../services/ownership-moves.js';
import type { WebhookService } from '../../services/webhook-service.js';
import type { CodeHost } from '../code-hosts.js';
import { WebhookConnectionCache } from '../webhook-connection-cache.js';
import { BitbucketClient } from './bitbucket-client.js';
import { BitbucketConnectionRepository } from './bitbucket-connection-repository.js';
import { bitbucketHost } from './bitbucket-host.js';
import { BitbucketService } from './bitbucket-service.js';
import type { BitbucketConnection } from './bitbucket-tables.js';
import { BitbucketWebhookService } from './bitbucket-webhook-service.js';

/** The shared parts Bitbucket is built from. */
export interface BitbucketWiringDeps {
  db: Database;
  secretBox: SecretBox;
  kv: KeyValueStore;
  queue: JobQueue;
  /** The intake every host's deliveries go through. */
  webhook: WebhookService;
  access: OrgAccess;
  moves: OwnershipMoves;
  pullRequests: PullRequestRepository;
  publications: PublicationRepository;
  /** `BITBUCKET_API_URL`: Bitbucket Cloud is one service, so its tokens only ever go there (decisions.md §16). */
  apiUrl: string;
  publicUrl: string;
  log: Logger;
}

/** Everything Bitbucket adds to the app, built once from the shared parts (`plugins/app/services.ts`). */
export interface BitbucketWiring {
  /** Connections: connect, list, move, disconnect (the routes'). */
  service: BitbucketService;
  /** `POST /webhook/bitbucket`. */
  webhookService: BitbucketWebhookService;
  /** Reading and publishing on Bitbucket, for `CodeHosts`. */
  codeHost: CodeHost;
  /** An organization's deletion returns its connections to the deleting owner. */
  returnToUser: OrganizationDeletionStep;
  /** A leaving member's connections held for the organization go to an heir. */
  handOver: OrganizationDepartureStep;
}

export function bitbucketWiring(deps: BitbucketWiringDeps): BitbucketWiring {
  const client = new BitbucketClient({ apiUrl: deps.apiUrl });
  const connections = new BitbucketConnectionRepository(deps.db);
  const webhookConnections = new WebhookConnectionCache<string, BitbucketConnection>({ read: (uuid) => connections.listForRepository(uuid), secretBox: deps.secretBox });
  const service = new BitbucketService({
    access: deps.access,
    moves: deps.moves,
    connections,
    client,
    secretBox: deps.secretBox,
    publicUrl: deps.publicUrl,
    webhookConnections,
    log: deps.log.child({ component: 'bitbucket' }),
  });
  return {
    service,
    webhookService: new BitbucketWebhookService({ connections: webhookConnections, webhook: deps.webhook, queue: deps.queue, log: deps.log.child({ component: 'webhook' }) }),
    codeHost: bitbucketHost({
      client,
      connections,
      pullRequests: deps.pullRequests,
      publications: deps.publications,
      target: (connection) => service.target(connection),
      markBroken: (connectionId, reason) => service.markBroken(connectionId, reason),
      kv: deps.kv,
      log: deps.log.child({ component: 'publishing' }),
    }),
    returnToUser: (orgId, byUserId, tx) => connections.returnToUser(orgId, byUserId, tx),
    handOver: (orgId, leavingUserId, heirs, tx) => connections.handOver(orgId, leavingUserId, heirs, tx),
  };
}
