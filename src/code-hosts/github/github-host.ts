import type { GitHubApp } from '../../adapters/github/github-app.js';
import type { GitHubCommand } from '../../adapters/queue/job-queue.js';
import type { PullRequest } from '../../db/schema/index.js';
import type { Logger } from '../../lib/logger.js';
import { installationCovers, type GitHubInstallationRepository } from '../../repositories/github-installation-repository.js';
import type { CommandTarget } from '../code-host.js';
import type { PullRequestRepository } from '../../repositories/pull-request-repository.js';
import type { UserRepository } from '../../repositories/user-repository.js';
import type { GitHubAppRegistry } from '../../services/github-app-registry.js';
import type { HostSession } from '../code-host.js';
import { descriptionText } from '../change-description.js';
import type { CodeHost } from '../code-hosts.js';
import { GitHubChangeReader, type GitHubReaderDeps } from './github-reader.js';
import { githubSession } from './github-publisher.js';

export interface GitHubHostDeps {
  installations: GitHubInstallationRepository;
  /** The App in use as this process last read it, without a read (decisions.md §13: it may be created while running). */
  currentApp: () => GitHubApp | undefined;
  /** The App in use (it may be created while the service runs, decisions.md §13); throws when none is. */
  app: () => Promise<GitHubApp>;
  log: Logger;
}

/**
 * A pull request's session on GitHub: only one that came through an installation that still
 * covers its repository (access lost: nothing more is posted there, decisions.md §8).
 */
export async function githubPullRequestSession(deps: GitHubHostDeps, pr: PullRequest): Promise<HostSession | undefined> {
  if (pr.installationId === null) return undefined;
  const installation = await deps.installations.find(pr.installationId);
  if (!installationCovers(installation, { id: pr.repositoryId === null ? null : Number(pr.repositoryId), fullName: pr.repositoryName })) {
    deps.log.info({ pullRequestId: pr.id, installationId: pr.installationId }, 'the App no longer has access to this repository: nothing is posted');
    return undefined;
  }
  return githubSession(await deps.app(), pr.installationId, pr.repositoryName, pr.prNumber, deps.log);
}

/** Where a command from a pull-request comment (or a re-requested check run) is answered: as the App, while its installation covers the repository. */
export async function githubCommandTarget(deps: GitHubHostDeps & { pullRequests: PullRequestRepository; users: Pick<UserRepository, 'findByCodehostId'> }, command: GitHubCommand): Promise<CommandTarget | undefined> {
  const installation = await deps.installations.find(command.installationId);
  if (!installationCovers(installation, { fullName: command.repositoryName })) return undefined;
  const app = await deps.app();
  const { senderId } = command;
  return {
    session: githubSession(app, command.installationId, command.repositoryName, command.prNumber, deps.log),
    mention: app.slug,
    pr: await deps.pullRequests.findByNumber(command.repositoryName, command.prNumber),
    authorAccount: async () => (senderId === undefined ? null : ((await deps.users.findByCodehostId(senderId))?.id ?? null)),
  };
}

/** GitHub as one of the service's code hosts. */
export function githubHost(deps: GitHubHostDeps & GitHubReaderDeps & { pullRequests: PullRequestRepository; users: Pick<UserRepository, 'findByCodehostId'> }): CodeHost {
  return {
    name: 'GitHub',
    description: (pr) => descriptionText((pr.bodyBlob as { pull_request?: { body?: unknown } } | null)?.pull_request?.body),
    // An account is linked to the GitHub id it signed in with; the author is the payload's `pull_request.user`.
    authoredBy: (pr, user) => user.codehostUserId !== null && (pr.bodyBlob as { pull_request?: { user?: { id?: unknown } } } | null)?.pull_request?.user?.id === user.codehostUserId,
    changeLabel: (pr) => `${pr.repositoryName}#${pr.prNumber}: ${pr.title} (GitHub id ${pr.prId})`,
    // Only through the App's installation.
    unpublishedReason: (pr) => (pr.installationId === null || deps.currentApp() === undefined ? 'The pull request did not come through the GitHub App' : null),
    async publicationBlock(pr) {
      const installation = pr.installationId === null ? undefined : await deps.installations.find(pr.installationId);
      if (installationCovers(installation, { id: pr.repositoryId === null ? null : Number(pr.repositoryId), fullName: pr.repositoryName })) return undefined;
      return { state: 'not_applicable', reason: 'The GitHub App was uninstalled, suspended or lost access to this repository' };
    },
    // Jobs queued before GitLab existed carry no `provider`.
    commandTarget: (command) => (command.provider === undefined || command.provider === 'github' ? githubCommandTarget(deps, command) : Promise.resolve(undefined)),
    session: (pr) => githubPullRequestSession(deps, pr),
    reader: (pr, owner) => Promise.resolve(new GitHubChangeReader(deps, pr, owner)),
  };
}

/** The App in use, read fresh (it may be created while the service runs, decisions.md §13); a job without one fails. */
export const appInUse = (apps: Pick<GitHubAppRegistry, 'fresh'>) => async (): Promise<GitHubApp> => {
  const githubApp = await apps.fresh();
  if (githubApp === undefined) throw new Error('The GitHub App is no longer configured');
  return githubApp;
};
