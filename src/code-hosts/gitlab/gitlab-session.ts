import type { GitLabClient } from './gitlab-client.js';
import { GitLabConnectionBrokenError } from './gitlab-errors.js';
import type { Logger } from '../../lib/logger.js';
import type { ChangePublisher, HostSession } from '../code-host.js';
import { gitlabJobFailure } from './gitlab-failure.js';
import { GitLabPublisher, type GitLabMergeRequestRef } from './gitlab-publisher.js';

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
