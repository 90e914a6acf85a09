import type { z } from 'zod';
import { AppError } from '../../lib/app-error.js';
import type { GitHubInstallationRepository } from '../../repositories/github-installation-repository.js';
import type { Executor } from '../../db/database.js';
import type { GitHubInstallation } from '../../db/schema/index.js';
import type { GitHubAppRegistry } from '../../services/github-app-registry.js';
import type { OwnershipMoves } from '../../services/ownership-moves.js';
import type { installationItem } from '../../routes/github/github-schemas.js';

/** The GitHub App as a user sees it: where to install it, and their installations (decisions.md §8). */
export class GitHubAppService {
  constructor(private readonly deps: { apps: GitHubAppRegistry; installations: GitHubInstallationRepository; moves: OwnershipMoves }) {}

  async installUrl(): Promise<string> {
    const app = await this.deps.apps.fresh();
    if (app === undefined) throw new AppError('UNAVAILABLE', 'The GitHub App is not configured: an operator creates it on /settings/github (or sets GITHUB_APP_ID, GITHUB_APP_PRIVATE_KEY, GITHUB_APP_SLUG)');
    return app.installUrl();
  }

  async installations(userId: string): Promise<Array<z.input<typeof installationItem>>> {
    return (await this.deps.installations.listForUser(userId)).map(installationView);
  }

  /** Moves an installation into or out of an organization with its pull requests (decisions.md §15). */
  async move(userId: string, id: string, orgId: string | null): Promise<z.input<typeof installationItem>> {
    const { installations, moves } = this.deps;
    const installationId = /^\d{1,15}$/.test(id) ? Number(id) : undefined;
    const live = (row: GitHubInstallation | undefined) => (row === undefined || row.deletedAt !== null ? undefined : row);
    const reload = async (tx: Executor) => (installationId === undefined ? undefined : live(await installations.lock(installationId, tx)));
    // Checked before the target, so that someone who cannot see it learns nothing about it.
    await moves.requireManages(installationId === undefined ? undefined : live(await installations.find(installationId)), userId, noSuchInstallation);
    await moves.move({
      userId,
      target: orgId,
      action: 'installation.moved',
      label: (row) => row.accountLogin,
      notFound: noSuchInstallation,
      reload,
      apply: (tx) => installations.move(installationId!, orgId?.toLowerCase() ?? null, userId, tx),
    });
    return installationView((await installations.find(installationId!))!);
  }
}

const noSuchInstallation = () => new AppError('NOT_FOUND', 'Installation not found');

function installationView(row: GitHubInstallation): z.input<typeof installationItem> {
  return {
    id: row.id,
    account: { login: row.accountLogin, type: row.accountType },
    repositorySelection: row.repositorySelection === 'all' ? 'all' : 'selected',
    repositories: row.repositories.map((repo) => repo.fullName).filter(Boolean),
    suspended: row.suspended,
    orgId: row.orgId,
    createdAt: row.createdAt.toISOString(),
  };
}
