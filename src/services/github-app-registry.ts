import { GitHubApp } from '../adapters/github/github-app.js';
import type { OAuthClient } from '../adapters/github/github-client.js';
import type { AppConfig } from '../config/config.js';
import type { SecretBox } from '../lib/crypto/secret-box.js';
import type { Logger } from '../lib/logger.js';
import type { ServiceSettingsRepository } from '../repositories/service-settings-repository.js';

/** The App the manifest flow created (decisions.md §13), kept as one sealed record. */
export interface StoredGitHubApp {
  id: string;
  slug: string;
  name: string;
  htmlUrl: string;
  owner: { login: string; type: string } | null;
  pem: string;
  webhookSecret: string | null;
  clientId: string;
  clientSecret: string;
}

export interface GitHubAppStatus {
  configured: boolean;
  source: 'environment' | 'database' | null;
  appId: string | null;
  slug: string | null;
  htmlUrl: string | null;
  owner: { login: string; type: string } | null;
}

const SETTING = 'github-app';

export interface GitHubAppRegistryDeps {
  config: AppConfig;
  settings: ServiceSettingsRepository;
  secretBox: SecretBox;
  log: Logger;
  /** How old the stored App may be when a process uses it: another process may have just created it. */
  maxAgeMs?: number;
}

/**
 * Which GitHub App this process speaks as, and with which secrets (decisions.md §13): the
 * `GITHUB_APP_*` variables when set, else the App stored by the manifest flow. Every process reads
 * the stored App from the database at most `maxAgeMs` old (and re-reads it on that period), so an
 * App created through one API process works in every API and worker process without a restart.
 */
export class GitHubAppRegistry {
  private readonly fromEnvironment: GitHubApp | undefined;
  private stored: { sealed: string; app: StoredGitHubApp; client: GitHubApp } | undefined;
  private loadedAt = Number.NEGATIVE_INFINITY;
  private loading: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly maxAgeMs: number;

  constructor(private readonly deps: GitHubAppRegistryDeps) {
    const { github } = deps.config;
    this.fromEnvironment = github.app === undefined ? undefined : new GitHubApp({ app: github.app, webUrl: github.url, apiUrl: github.apiUrl });
    this.maxAgeMs = deps.maxAgeMs ?? 5_000;
  }

  /** The App in use as last read (at most one period old); for callers that cannot wait. */
  get current(): GitHubApp | undefined {
    return this.fromEnvironment ?? this.stored?.client;
  }

  /** The App in use, read again when the last read is older than the period. */
  async fresh(): Promise<GitHubApp | undefined> {
    await this.load();
    return this.current;
  }

  /** `GITHUB_WEBHOOK_SECRET` when set; else the stored App's secret while the stored App is the one in use. */
  async webhookSecret(): Promise<string | undefined> {
    if (this.deps.config.github.webhookSecret !== undefined) return this.deps.config.github.webhookSecret;
    return (await this.inUse())?.webhookSecret ?? undefined;
  }

  /** Who serves "Sign in with GitHub": the OAuth app of `GITHUB_CLIENT_ID`/`SECRET` when set, else the stored App in use. */
  async oauthClient(): Promise<OAuthClient | undefined> {
    const { clientId, clientSecret } = this.deps.config.github;
    if (clientId !== undefined && clientSecret !== undefined) return { clientId, clientSecret };
    const stored = await this.inUse();
    return stored === undefined ? undefined : { clientId: stored.clientId, clientSecret: stored.clientSecret };
  }

  async status(): Promise<GitHubAppStatus> {
    const env = this.fromEnvironment;
    if (env !== undefined) return { configured: true, source: 'environment', appId: env.id, slug: env.slug, htmlUrl: `${this.deps.config.github.url}/apps/${env.slug}`, owner: null };
    const stored = await this.inUse();
    if (stored === undefined) return { configured: false, source: null, appId: null, slug: null, htmlUrl: null, owner: null };
    return { configured: true, source: 'database', appId: stored.id, slug: stored.slug, htmlUrl: stored.htmlUrl, owner: stored.owner };
  }

  /** Keeps the first App stored (a second conversion racing it loses); false when one was already there. */
  async store(app: StoredGitHubApp): Promise<boolean> {
    const sealed = this.deps.secretBox.encrypt(JSON.stringify(app));
    const held = await this.deps.settings.claim(SETTING, sealed);
    await this.load(true);
    return held === sealed;
  }

  /** Re-reads the stored App every period, so `current` follows it in processes that only run jobs. */
  watch(): void {
    this.timer ??= setInterval(() => {
      this.load(true).catch((error: unknown) => this.deps.log.warn({ err: error }, 'could not read the stored GitHub App'));
    }, this.maxAgeMs).unref();
  }

  close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private async inUse(): Promise<StoredGitHubApp | undefined> {
    if (this.fromEnvironment !== undefined) return undefined;
    await this.load();
    return this.stored?.app;
  }

  private async load(force = false): Promise<void> {
    if (!force && Date.now() - this.loadedAt < this.maxAgeMs) return;
    this.loading ??= this.read().finally(() => (this.loading = undefined));
    await this.loading;
  }

  private async read(): Promise<void> {
    const sealed = await this.deps.settings.find(SETTING);
    this.loadedAt = Date.now();
    if (sealed === undefined || sealed === this.stored?.sealed) return;
    const app = JSON.parse(this.deps.secretBox.decrypt(sealed)) as StoredGitHubApp;
    const { url, apiUrl } = this.deps.config.github;
    // A new client only when the record changed, so cached installation tokens survive the re-reads.
    this.stored = { sealed, app, client: new GitHubApp({ app: { id: app.id, privateKey: app.pem, slug: app.slug }, webUrl: url, apiUrl }) };
  }
}
