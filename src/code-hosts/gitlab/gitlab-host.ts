import type { GitLabClient } from '../../adapters/gitlab/gitlab-client.js';
import { GitLabConnectionBrokenError } from '../../adapters/gitlab/gitlab-errors.js';
import type { GitLabTarget } from '../../adapters/gitlab/gitlab-client.js';
import { UnrecoverableJobError } from '../../adapters/queue/job-queue.js';
import type { GitLabConnection, PullRequest } from '../../db/schema/index.js';
import type { Logger } from '../../lib/logger.js';
import type { GitLabMergeRequestRepository } from '../../repositories/gitlab-merge-request-repository.js';
import type { ChangePublisher, HostSession } from '../code-host.js';
import type { CodeHost } from '../code-hosts.js';
import { gitlabJobFailure } from './gitlab-failure.js';
import { GitLabPublisher, type GitLabMergeRequestRef } from './gitlab-publisher.js';
import { GitLabChangeReader } from './gitlab-reader.js';

export interface GitLabHostDeps {
  client: GitLabClient;
  /** A 401 or 403 marks the connection `broken` with GitLab's reason (shown in the list and the web app). */
  markBroken: (connectionId: string, reason: string) => Promise<void>;
  log: Logger;
}

/** A merge request's session as its connection's token user; a refused token breaks the connection before the job ends. */
export function gitlabSession(deps: GitLabHostDeps, connectionId: string, mr: GitLabMergeRequestRef): HostSession {
  return {
    run: async <T>(call: (publisher: ChangePublisher) => Promise<T>) => {
      try {
        return await call(new GitLabPublisher(deps.client, mr, deps.log));
      } catch (error) {
        if (error instanceof GitLabConnectionBrokenError) await deps.markBroken(connectionId, error.message);
        throw error;
      }
    },
    failure: gitlabJobFailure,
  };
}

export interface GitLabCodeHostDeps extends GitLabHostDeps {
  mergeRequests: GitLabMergeRequestRepository;
  /** A connection's instance and decrypted token. */
  target: (connection: GitLabConnection) => GitLabTarget;
}

/** GitLab as one of the service's code hosts: a merge request's record names its connection. */
export function gitlabHost(deps: GitLabCodeHostDeps): CodeHost {
  const mergeRequestOf = (pr: PullRequest, connection: GitLabConnection): GitLabMergeRequestRef => ({
    target: deps.target(connection),
    projectId: connection.projectId,
    iid: pr.prNumber,
    webUrl: pr.htmlUrl ?? connection.projectWebUrl,
    tokenUserId: connection.tokenUserId,
  });
  return {
    async session(pr) {
      const connection = await deps.mergeRequests.connectionOf(pr.prId);
      // Disconnected, or its token refused: nothing is posted until its owner connects it again.
      if (connection === undefined || connection.status === 'broken') {
        deps.log.info({ pullRequestId: pr.id }, 'the GitLab connection is gone or broken: nothing is posted');
        return undefined;
      }
      return gitlabSession(deps, connection.id, mergeRequestOf(pr, connection));
    },
    async reader(pr) {
      const connection = requireConnection(await deps.mergeRequests.connectionOf(pr.prId));
      return new GitLabChangeReader(deps.client, mergeRequestOf(pr, connection), async (error) => {
        if (error instanceof GitLabConnectionBrokenError) await deps.markBroken(connection.id, error.message);
        throw gitlabJobFailure(error);
      });
    },
  };
}

/** A merge request whose connection was removed cannot be read any more: retrying will not bring it back. */
function requireConnection(connection: GitLabConnection | undefined): GitLabConnection {
  if (connection === undefined) throw new UnrecoverableJobError('The GitLab project was disconnected');
  return connection;
}
