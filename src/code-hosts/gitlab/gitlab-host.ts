import { GitLabConnectionBrokenError } from './gitlab-errors.js';
import { UnrecoverableJobError } from '../../adapters/queue/job-queue.js';
import type { PullRequest } from '../../db/schema/index.js';
import type { GitLabConnection } from './gitlab-tables.js';
import { apiPrId } from '../../lib/ids.js';
import { descriptionText } from '../change-description.js';
import type { CodeHost } from '../code-hosts.js';
import { gitlabCommandTarget, type GitLabCommandDeps } from './gitlab-commands.js';
import { gitlabJobFailure } from './gitlab-failure.js';
import type { GitLabMergeRequestRef } from './gitlab-publisher.js';
import { GitLabChangeReader } from './gitlab-reader.js';
import { gitlabSession } from './gitlab-session.js';

export { gitlabSession };

export type GitLabCodeHostDeps = GitLabCommandDeps;

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
    name: 'GitLab',
    description: (pr) => descriptionText((pr.bodyBlob as { object_attributes?: { description?: unknown } } | null)?.object_attributes?.description),
    // A merge request is named by its record's id and GitLab's `!` (decisions.md §12).
    changeLabel: (pr) => `${pr.repositoryName}!${pr.prNumber}: ${pr.title} (GitLab merge request, id ${apiPrId(pr)})`,
    // Every merge request came through a connection.
    unpublishedReason: () => null,
    async publicationBlock(pr) {
      const connection = await deps.mergeRequests.connectionOf(pr.prId);
      if (connection === undefined) return { state: 'not_applicable', reason: 'The GitLab project was disconnected' };
      if (connection.status === 'broken') return { state: 'failed', reason: `GitLab refused the connection's token: ${connection.brokenReason ?? 'unknown reason'}` };
      return undefined;
    },
    commandTarget: (command) => (command.provider === 'gitlab' ? gitlabCommandTarget(deps, command) : Promise.resolve(undefined)),
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
