import { UnrecoverableJobError } from '../../adapters/queue/job-queue.js';
import type { PullRequest } from '../../db/schema/index.js';
import { apiPrId } from '../../lib/ids.js';
import { descriptionText } from '../change-description.js';
import type { CodeHost } from '../code-hosts.js';
import { bitbucketCommandTarget } from './bitbucket-commands.js';
import { BitbucketConnectionBrokenError } from './bitbucket-errors.js';
import { bitbucketJobFailure } from './bitbucket-failure.js';
import type { BitbucketPullRequestRef } from './bitbucket-publisher.js';
import { BitbucketChangeReader } from './bitbucket-reader.js';
import { bitbucketSession, type BitbucketHostDeps } from './bitbucket-session.js';
import type { BitbucketConnection } from './bitbucket-tables.js';

export type { BitbucketHostDeps };

/** The parts of the stored webhook payload (`{actor, pullrequest, repository}`, facts §1) the host reads. */
interface StoredPayload {
  pullrequest?: { description?: unknown; destination?: { commit?: { hash?: unknown } | null } };
}

const payloadOf = (pr: PullRequest) => (pr.bodyBlob as StoredPayload | null) ?? {};

/**
 * Bitbucket Cloud as one of the service's code hosts (decisions.md §16): a pull request's record
 * names its connection (`bitbucket_pull_requests`), its `prNumber` is Bitbucket's id, its `bodyBlob`
 * the last stored webhook payload.
 */
export function bitbucketHost(deps: BitbucketHostDeps): CodeHost {
  const pullRequestOf = (pr: PullRequest, connection: BitbucketConnection): BitbucketPullRequestRef => ({
    target: deps.target(connection),
    number: pr.prNumber,
    webUrl: pr.htmlUrl ?? `${connection.htmlUrl}/pull-requests/${pr.prNumber}`,
  });
  return {
    name: 'Bitbucket',
    description: (pr) => descriptionText(payloadOf(pr).pullrequest?.description),
    // Bitbucket's ids are unique per repository only: the label adds the record's id (decisions.md §16).
    changeLabel: (pr) => `${pr.repositoryName}#${pr.prNumber}: ${pr.title} (Bitbucket pull request, id ${apiPrId(pr)})`,
    // Every pull request came through a connection.
    unpublishedReason: () => null,
    async publicationBlock(pr) {
      const connection = await deps.connections.connectionOf(pr.prId);
      if (connection === undefined) return { state: 'not_applicable', reason: 'The Bitbucket repository was disconnected' };
      if (connection.status === 'broken') return { state: 'failed', reason: `Bitbucket refused the connection's token: ${connection.brokenReason ?? 'unknown reason'}` };
      return undefined;
    },
    commandTarget: (command) => (command.provider === 'bitbucket' ? bitbucketCommandTarget(deps, command) : Promise.resolve(undefined)),
    async session(pr) {
      const connection = await deps.connections.connectionOf(pr.prId);
      // Disconnected, or its token refused: nothing is posted until its owner connects it again.
      if (connection === undefined || connection.status === 'broken') {
        deps.log.info({ pullRequestId: pr.id }, 'the Bitbucket connection is gone or broken: nothing is posted');
        return undefined;
      }
      return bitbucketSession(deps, connection, pullRequestOf(pr, connection));
    },
    async reader(pr) {
      const connection = requireConnection(await deps.connections.connectionOf(pr.prId));
      const destination = payloadOf(pr).pullrequest?.destination?.commit?.hash;
      const ref = { target: deps.target(connection), number: pr.prNumber, repositoryUuid: connection.repositoryUuid, destinationCommit: typeof destination === 'string' && destination !== '' ? destination : null };
      return new BitbucketChangeReader(deps.client, ref, async (error) => {
        if (error instanceof BitbucketConnectionBrokenError) await deps.markBroken(connection.id, error.message);
        throw bitbucketJobFailure(error);
      });
    },
  };
}

/** A pull request whose connection was removed cannot be read any more: retrying will not bring it back. */
function requireConnection(connection: BitbucketConnection | undefined): BitbucketConnection {
  if (connection === undefined) throw new UnrecoverableJobError('The Bitbucket repository was disconnected');
  return connection;
}
