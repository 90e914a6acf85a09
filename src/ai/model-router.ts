import type { LanguageModelV3 } from '@ai-sdk/provider';
import type { AppConfig } from '../config/config.js';
import type { PlatformModel } from '../config/env-schema.js';
import type { ReviewMode, WorkspaceSettings } from '../db/schema/index.js';
import { spendLimitReason, type Owner } from '../domain/owners.js';
import { AppError } from '../lib/app-error.js';
import type { SecretBox } from '../lib/crypto/secret-box.js';
import type { OrganizationRepository } from '../repositories/organization-repository.js';
import type { UsageRepository } from '../repositories/usage-repository.js';
import type { WorkspaceRepository } from '../repositories/workspace-repository.js';
import type { ByokDirectory, CachedProvider } from './byok-directory.js';
import type { ProviderName } from './catalog/provider-catalog.js';
import type { EndpointPolicy } from '../lib/endpoint-policy.js';
import { createLanguageModel, providerBaseUrl } from './language-models.js';
import type { MeterTarget, UsageContext, UsageMeter } from './usage-meter.js';

export interface ModelRequest {
  /** Whose keys, settings and allowance: a user's, or an organization's (decisions.md §15). */
  owner: Owner;
  /** In an organization, the member who triggered the calls (their usage is attributed to them); null when none did. */
  memberId?: string | null;
  /** A model slug; when absent, the workspace's model for `mode`, then a default. */
  model?: string | null;
  mode?: ReviewMode;
  /** The user's workspace settings when the caller has them already (saves a read). */
  settings?: WorkspaceSettings | null;
  /** An explicit choice among the user's providers. */
  provider?: { providerId?: string; modelProviderName?: string };
  /** What the generations are for, on their usage records; a chat without a pull request when absent. */
  usage?: UsageContext;
}

export interface ModelChoice {
  /** Metered: every generation through it records its usage, under the request's `usage` context. */
  model: LanguageModelV3;
  /** The same model metered under another context (a review's verification, a chat's pull request). */
  meteredAs(context: Partial<UsageContext>): LanguageModelV3;
  modelId: string;
  source: 'byok' | 'platform';
  providerId: string | null;
  providerName: ProviderName | 'platform';
  contextLength: number | null;
}

export interface ModelRouterDeps {
  config: Pick<AppConfig, 'platformAi' | 'freeAllowanceUsd' | 'byokBaseUrls'>;
  directory: ByokDirectory;
  workspace: WorkspaceRepository;
  usage: UsageRepository;
  /** An organization's monthly spend limit, read on every resolve for it (a raised limit holds at once). */
  organizations: Pick<OrganizationRepository, 'spendLimit'>;
  meter: UsageMeter;
  secretBox: SecretBox;
  policy: EndpointPolicy;
}

/** Who pays and what for: a generation's usage context with its owner. */
type Payer = UsageContext & Pick<MeterTarget, 'owner' | 'memberId'>;

const MODE_FIELDS = { quick: 'quickModeModel', focused: 'focusedModeModel', deep: 'deepModeModel' } as const;

/**
 * The one way to a language model. For a user and a model (or a review mode), picks the provider
 * and key in this order: the provider the request names; an enabled provider of the user whose
 * catalog has the model; the platform, while the user's spend is under the free allowance. Past
 * that, a 402 that says to add a key. The model handed out records its own usage and cost.
 */
export class ModelRouter {
  constructor(private readonly deps: ModelRouterDeps) {}

  async resolve(request: ModelRequest): Promise<ModelChoice> {
    const { owner } = request;
    if (owner.kind === 'org') await this.withinSpendLimit(owner.id);
    const usage: Payer = { owner, memberId: owner.kind === 'org' ? (request.memberId ?? null) : null, ...(request.usage ?? { kind: 'chat' }) };
    const slug = request.model?.trim() || (request.mode === undefined ? undefined : await this.modeModel(owner, request.mode, request.settings));
    const providers = await this.deps.directory.list(owner);

    if (request.provider !== undefined) {
      const { providerId, modelProviderName } = request.provider;
      const chosen = providers.find((provider) => (providerId !== undefined ? provider.id === providerId : provider.modelProviderName === modelProviderName));
      if (chosen === undefined) throw new AppError('NOT_FOUND', 'No such provider among your API keys');
      if (!chosen.enabled) throw new AppError('BAD_REQUEST', `Your ${chosen.modelProviderName} key is disabled`);
      const modelId = slug ?? chosen.availableModels?.[0]?.id;
      if (modelId === undefined) throw new AppError('BAD_REQUEST', 'Choose a model for that provider');
      return this.fromProvider(usage, chosen, modelId);
    }

    const enabled = providers.filter((provider) => provider.enabled);
    if (slug !== undefined) {
      const serving = enabled.find((provider) => provider.availableModels?.some((model) => model.id === slug));
      if (serving !== undefined) return this.fromProvider(usage, serving, slug);
    }

    // The allowance is only read when the platform would serve the model: the read is on every chat's path.
    const { platformAi, freeAllowanceUsd } = this.deps.config;
    const offered = platformAi.baseUrl === undefined ? undefined : slug === undefined ? platformAi.models[0] : platformAi.models.find((model) => model.id === slug);
    if (offered !== undefined && (await this.deps.usage.totalCost(owner)) < freeAllowanceUsd) return this.fromPlatform(usage, offered);

    // Nothing asked for in particular: any model of the user's own keys will do.
    const fallback = slug === undefined ? enabled.find((provider) => (provider.availableModels?.length ?? 0) > 0) : undefined;
    if (fallback !== undefined) return this.fromProvider(usage, fallback, fallback.availableModels![0]!.id);

    throw new AppError('PAYMENT_REQUIRED', this.refusal(slug, offered !== undefined));
  }

  /**
   * decisions.md §15: once an organization's spend this UTC month (its own keys' catalog costs and
   * the platform's alike) reaches its limit, nothing new runs for it: a 402 with the stated reason.
   */
  private async withinSpendLimit(orgId: string): Promise<void> {
    const limit = await this.deps.organizations.spendLimit(orgId);
    if (limit === null || limit === undefined) return;
    const monthStart = `${new Date().toISOString().slice(0, 7)}-01`;
    if ((await this.deps.usage.orgSpendSince(orgId, monthStart)) >= limit) throw new AppError('PAYMENT_REQUIRED', spendLimitReason(limit));
  }

  private refusal(slug: string | undefined, onPlatform: boolean): string {
    if (onPlatform) {
      return `Your free allowance of ${this.deps.config.freeAllowanceUsd.toFixed(2)} USD is used up: add an API key of your own (POST /byok) to keep going`;
    }
    if (this.deps.config.platformAi.baseUrl === undefined) return 'This service offers no platform models: add an API key of your own (POST /byok)';
    return `None of your API keys serves "${slug}" and the platform does not offer it: add a key for it (POST /byok)`;
  }

  private async modeModel(owner: Owner, mode: ReviewMode, known: WorkspaceSettings | null | undefined): Promise<string | undefined> {
    const settings = known === undefined ? await this.deps.workspace.find(owner) : known;
    return settings?.[MODE_FIELDS[mode]]?.trim() || undefined;
  }

  private fromProvider(usage: Payer, provider: CachedProvider, modelId: string): ModelChoice {
    const name = provider.modelProviderName as ProviderName;
    const model = createLanguageModel({
      provider: name,
      baseUrl: providerBaseUrl(this.deps.config.byokBaseUrls, name, provider.customBaseUrl),
      apiKey: this.deps.secretBox.decrypt(provider.apiKey),
      modelId,
      // A URL the user supplied is checked on every call, not only when it was registered.
      fetch: provider.customBaseUrl === null ? undefined : this.deps.policy.fetch,
    });
    const listed = provider.availableModels?.find((entry) => entry.id === modelId);
    // The provider's catalog prices the call when it lists prices (OpenRouter does); BYOK is never charged.
    const pricing = listed?.inputPrice !== undefined && listed.outputPrice !== undefined ? { inputPrice: listed.inputPrice, outputPrice: listed.outputPrice } : null;
    return {
      ...this.metered(model, { ...usage, pricing, charged: false, provider: name }),
      modelId,
      source: 'byok',
      providerId: provider.id,
      providerName: name,
      contextLength: listed?.contextLength ?? null,
    };
  }

  private fromPlatform(usage: Payer, entry: PlatformModel): ModelChoice {
    const { baseUrl, apiKey } = this.deps.config.platformAi;
    const model = createLanguageModel({ provider: 'platform', baseUrl: baseUrl!, apiKey: apiKey ?? '', modelId: entry.id });
    return {
      ...this.metered(model, { ...usage, pricing: { inputPrice: entry.inputPrice, outputPrice: entry.outputPrice }, charged: true, provider: 'platform' }),
      modelId: entry.id,
      source: 'platform',
      providerId: null,
      providerName: 'platform',
      contextLength: entry.contextLength,
    };
  }

  private metered(model: LanguageModelV3, target: MeterTarget): Pick<ModelChoice, 'model' | 'meteredAs'> {
    return {
      model: this.deps.meter.wrap(model, target),
      meteredAs: (context) => this.deps.meter.wrap(model, { ...target, ...context }),
    };
  }
}
