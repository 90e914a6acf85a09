import type { z } from 'zod';
import { AppError } from '../../lib/app-error.js';
import type { GitHubInstallationRepository } from '../../repositories/github-installation-repository.js';
import type { GitHubAppRegistry } from '../../services/github-app-registry.js';
import type { installationItem } from '../../routes/github/github-schemas.js';

/** The GitHub App as a user sees it: where to install it, and their installations (decisions.md §8). */
export class GitHubAppService {
  constructor(private readonly deps: { apps: GitHubAppRegistry; installations: GitHubInstallationRepository }) {}

  async installUrl(): Promise<string> {
    const app = await this.deps.apps.fresh();
    if (app === undefined) throw new AppError('UNAVAILABLE', 'The GitHub App is not configured: an operator creates it on /settings/github (or sets GITHUB_APP_ID, GITHUB_APP_PRIVATE_KEY, GITHUB_APP_SLUG)');
    return app.installUrl();
  }

  async installations(userId: string): Promise<Array<z.input<typeof installationItem>>> {
    const rows = await this.deps.installations.listForUser(userId);
    return rows.map((row) => ({
      id: row.id,
      account: { login: row.accountLogin, type: row.accountType },
      repositorySelection: row.repositorySelection === 'all' ? 'all' : 'selected',
      repositories: row.repositories.map((repo) => repo.fullName).filter(Boolean),
      suspended: row.suspended,
      createdAt: row.createdAt.toISOString(),
    }));
  }
}
