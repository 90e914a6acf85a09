import type { KeyValueStore } from '../../adapters/kv/key-value-store.js';
import type { Logger } from '../../lib/logger.js';
import type { PublicationRepository } from '../../repositories/publication-repository.js';
import type { PullRequestRepository } from '../../repositories/pull-request-repository.js';
import type { ChangePublisher, HostSession } from '../code-host.js';
import type { BitbucketClient, BitbucketTarget } from './bitbucket-client.js';
import type { BitbucketConnectionRepository } from './bitbucket-connection-repository.js';
import { BitbucketConnectionBrokenError } from './bitbucket-errors.js';
import { bitbucketJobFailure } from './bitbucket-failure.js';
import { BitbucketPublisher, type BitbucketPullRequestRef, type ServiceAccount } from './bitbucket-publisher.js';
import type { BitbucketConnection } from './bitbucket-tables.js';

export interface BitbucketHostDeps {
  client: BitbucketClient;
  connections: Pick<BitbucketConnectionRepository, 'connectionOf' | 'prIdOf' | 'find' | 'setAccount'>;
  pullRequests: Pick<PullRequestRepository, 'findByPrId'>;
  publications: Pick<PublicationRepository, 'findingOfThread'>;
  /** The connection's repository with its decrypted credentials (access token: Bearer; with email: API token, Basic). */
  target: (connection: BitbucketConnection) => BitbucketTarget;
  /** A 401/403 marks the connection broken with Bitbucket's reason. */
  markBroken: (connectionId: string, reason: string) => Promise<void>;
  kv: KeyValueStore;
  log: Logger;
}

/** A pull request's session as its connection's account; a refused token breaks the connection before the job ends. */
export function bitbucketSession(deps: BitbucketHostDeps, connection: BitbucketConnection, pr: BitbucketPullRequestRef): HostSession {
  const account = serviceAccount(deps, connection, pr.target);
  return {
    run: async <T>(call: (publisher: ChangePublisher) => Promise<T>) => {
      try {
        return await call(new BitbucketPublisher(deps.client, pr, account, deps.log));
      } catch (error) {
        if (error instanceof BitbucketConnectionBrokenError) await deps.markBroken(connection.id, error.message);
        throw error;
      }
    },
    failure: bitbucketJobFailure,
  };
}

/**
 * The account the connection writes as (decisions.md §16): stored on the connection once known; an
 * API token's is asked of `GET /user` when missing, an access token's (which `GET /user` refuses,
 * facts §5) is the author of the first comment the service creates with it.
 */
export function serviceAccount(deps: Pick<BitbucketHostDeps, 'client' | 'connections'>, connection: BitbucketConnection, target: BitbucketTarget): ServiceAccount {
  let known = connection.accountUuid;
  const remember = async (uuid: string) => {
    known = uuid;
    await deps.connections.setAccount(connection.id, uuid);
  };
  return {
    async uuid() {
      if (known === null && target.auth.kind === 'api-token') {
        const user = await deps.client.currentUser(target.auth);
        if (user !== null) await remember(user.uuid);
      }
      return known;
    },
    async learn(uuid) {
      if (known === null && typeof uuid === 'string' && uuid !== '') await remember(uuid);
    },
  };
}
