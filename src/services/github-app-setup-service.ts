import { GitHubApiError, type GitHubClient, type ManifestConversion } from '../adapters/github/github-client.js';
import { setJson, type KeyValueStore } from '../adapters/kv/key-value-store.js';
import { AppError } from '../lib/app-error.js';
import { randomHex } from '../lib/crypto/tokens.js';
import type { Logger } from '../lib/logger.js';
import type { GitHubAppRegistry, GitHubAppStatus, StoredGitHubApp } from './github-app-registry.js';
import type { Operators } from './operators.js';
import type { AppManifest } from '../routes/admin/admin-schemas.js';

/** GitHub's manifest flow allows an hour between the form and the conversion. */
const STATE_TTL_MS = 60 * 60_000;
/** GitHub App names are at most 34 characters. */
const MAX_NAME = 34;

interface ManifestState {
  userId: string;
  issuedAt: number;
}

export interface GitHubAppSetupDeps {
  apps: GitHubAppRegistry;
  operators: Operators;
  github: GitHubClient;
  kv: KeyValueStore;
  publicUrl: string;
  githubUrl: string;
  log: Logger;
}

/** The operator's side of the GitHub App (decisions.md §13): what is configured, and creating it from a manifest. */
export class GitHubAppSetupService {
  constructor(private readonly deps: GitHubAppSetupDeps) {}

  /** Everyone but an operator gets a 404: the admin surface does not exist for them. */
  async requireOperator(userId: string | undefined): Promise<void> {
    if (userId === undefined || !(await this.deps.operators.isOperator(userId))) throw new AppError('NOT_FOUND', 'Not Found');
  }

  status(): Promise<GitHubAppStatus> {
    return this.deps.apps.status();
  }

  /** The manifest and where to post it, with a single-use state bound to this operator. */
  async manifest(userId: string, organization: string | undefined): Promise<{ url: string; manifest: AppManifest; state: string }> {
    if ((await this.deps.apps.status()).configured) throw new AppError('CONFLICT', 'A GitHub App is already configured');
    const state = randomHex(32);
    await setJson(this.deps.kv, stateKey(state), { userId, issuedAt: Date.now() } satisfies ManifestState, STATE_TTL_MS / 1000);
    const owner = organization === undefined ? '' : `/organizations/${encodeURIComponent(organization)}`;
    return { url: `${this.deps.githubUrl}${owner}/settings/apps/new?state=${state}`, manifest: this.appManifest(), state };
  }

  /**
   * GitHub's redirect after the App was created: the state is spent whatever happens next, and
   * nothing is stored unless it was this operator's, within the hour, and GitHub converts the code.
   */
  async complete(userId: string, input: { code: string; state: string }): Promise<void> {
    const raw = await this.deps.kv.take(stateKey(input.state));
    const state = raw === null ? undefined : (JSON.parse(raw) as ManifestState);
    if (state === undefined || state.userId !== userId || Date.now() - state.issuedAt > STATE_TTL_MS) {
      throw new AppError('BAD_REQUEST', 'This GitHub App setup link has expired or was already used; press "Create the GitHub App" again');
    }
    const converted = await this.deps.github.convertManifest(input.code).catch(refusedCode);
    if (!(await this.deps.apps.store(storedApp(converted)))) throw new AppError('CONFLICT', 'A GitHub App was stored meanwhile; this one is not used');
    this.deps.log.info({ appId: converted.id, slug: converted.slug }, 'the GitHub App was created from the manifest');
  }

  private appManifest(): AppManifest {
    const base = this.deps.publicUrl;
    return {
      name: `PR Review ${new URL(base).host}`.slice(0, MAX_NAME).trim(),
      url: base,
      hook_attributes: { url: `${base}/webhook`, active: true },
      redirect_url: `${base}/github/app-manifest/callback`,
      callback_urls: [`${base}/auth/codehost/callback`],
      setup_url: `${base}/settings/github`,
      public: false,
      default_permissions: { pull_requests: 'write', checks: 'write', issues: 'write', contents: 'read', metadata: 'read' },
      // Installation events reach every App unasked, and GitHub refuses them in this list.
      default_events: ['pull_request', 'issue_comment', 'check_run', 'pull_request_review_comment'],
    };
  }
}

const stateKey = (state: string) => `app-manifest-state:${state}`;

/** The slug is GitHub's (the person may have renamed the App on GitHub's page), never the manifest's name. */
function storedApp(converted: ManifestConversion): StoredGitHubApp {
  return {
    id: String(converted.id),
    slug: converted.slug,
    name: converted.name,
    htmlUrl: converted.html_url,
    owner: converted.owner === null ? null : { login: converted.owner.login, type: converted.owner.type },
    pem: converted.pem,
    webhookSecret: converted.webhook_secret,
    clientId: converted.client_id,
    clientSecret: converted.client_secret,
  };
}

function refusedCode(error: unknown): never {
  if (error instanceof GitHubApiError) throw new AppError('BAD_REQUEST', `GitHub refused the App's code: ${error.message}`);
  throw error;
}
