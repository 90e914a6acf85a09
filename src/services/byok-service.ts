import type { z } from 'zod';
import { CatalogError, fetchCatalog, type CatalogModel, type ProviderName } from '../ai/catalog/provider-catalog.js';
import type { EndpointPolicy } from '../lib/endpoint-policy.js';
import { providerBaseUrl } from '../ai/language-models.js';
import { platformCatalogEntry } from '../ai/platform-catalog.js';
import type { AppConfig } from '../config/config.js';
import { isUniqueViolation } from '../db/errors.js';
import type { ByokProvider } from '../db/schema/index.js';
import { AppError } from '../lib/app-error.js';
import type { Owner } from '../domain/owners.js';
import { isUuid } from '../lib/ids.js';
import type { SecretBox } from '../lib/crypto/secret-box.js';
import type { ByokProviderChanges, ByokProviderRepository } from '../repositories/byok-provider-repository.js';
import type { ByokDirectory } from '../ai/byok-directory.js';
import type { Space, SpaceAudit } from './space-audit.js';
import { isMaskedKey, type patchByIdBody, type probeBody, type registerBody } from '../routes/byok/byok-schemas.js';

type RegisterInput = z.output<typeof registerBody>;
type ProbeInput = z.output<typeof probeBody>;
type PatchInput = z.output<typeof patchByIdBody>;

export interface ByokServiceDeps {
  config: Pick<AppConfig, 'byokBaseUrls' | 'platformAi'>;
  providers: ByokProviderRepository;
  directory: ByokDirectory;
  secretBox: SecretBox;
  policy: EndpointPolicy;
  audit: SpaceAudit;
  catalogTimeoutMs?: number;
}

const model = (entry: { id: string; name: string; contextLength?: number | null }): CatalogModel => ({
  id: entry.id,
  name: entry.name,
  contextLength: entry.contextLength ?? null,
});

/** Bring your own key: register, probe and manage the provider keys of a user or an organization. */
export class ByokService {
  constructor(private readonly deps: ByokServiceDeps) {}

  async list(owner: Owner) {
    return (await this.deps.directory.list(owner)).map((provider) => ({
      id: provider.id,
      modelProviderName: provider.modelProviderName,
      customModels: provider.customModels,
      customBaseUrl: provider.customBaseUrl,
      enabled: provider.enabled,
      availableModels: (provider.availableModels ?? []).map(model),
      createdAt: provider.createdAt,
    }));
  }

  /**
   * Registers a key, or updates the user's provider of that name in place. The key is probed
   * against the provider's model list first, so a rejected key is never stored. A key made only of
   * mask characters keeps the stored one.
   */
  async register(space: Space, input: RegisterInput): Promise<{ created: boolean; id: string; models: CatalogModel[] }> {
    const { owner } = space;
    const name = input.modelProviderName;
    const existing = await this.deps.providers.findByName(owner, name);
    if (isMaskedKey(input.apiKey) && existing === undefined) throw new AppError('BAD_REQUEST', 'apiKey is required for a new provider');
    const apiKey = isMaskedKey(input.apiKey) ? this.deps.secretBox.decrypt(existing!.apiKey) : input.apiKey;
    const customBaseUrl = input.customBaseUrl === undefined ? (existing?.customBaseUrl ?? null) : input.customBaseUrl;
    const customList = Array.isArray(input.customModels)
      ? input.customModels.map((entry) => (typeof entry === 'string' ? { id: entry, name: entry, contextLength: null } : model({ ...entry, name: entry.name ?? entry.id })))
      : undefined;

    const models = await this.catalog(name, apiKey, customBaseUrl, customList);
    const values = {
      modelProviderName: name,
      apiKey: this.deps.secretBox.encrypt(apiKey),
      customModels: customList !== undefined || input.customModels === true,
      customBaseUrl,
      enabled: input.enabled ?? existing?.enabled ?? true,
      availableModels: models,
    };
    let row: ByokProvider | undefined;
    try {
      row = existing === undefined ? await this.deps.providers.create(owner, values) : await this.deps.providers.update(owner, existing.id, values);
    } catch (error) {
      if (isUniqueViolation(error)) throw new AppError('CONFLICT', `A ${name} key was registered at the same time; try again`);
      throw error;
    } finally {
      await this.deps.directory.invalidate(owner);
    }
    // A masked key keeps the stored one: then only the provider's settings changed.
    const entry = isMaskedKey(input.apiKey)
      ? { action: 'settings.changed' as const, target: `${name} key`, details: { providerId: row!.id, modelProviderName: name } }
      : { action: 'key.added' as const, target: `${name} key`, details: { providerId: row!.id, modelProviderName: name, replaced: existing !== undefined } };
    await this.deps.audit.record(space, [entry]);
    return { created: existing === undefined, id: row!.id, models };
  }

  /** The models a key gives access to, without storing anything. */
  probe(input: ProbeInput): Promise<CatalogModel[]> {
    return this.catalog(input.modelProviderName, input.apiKey, input.customBaseUrl ?? null, undefined);
  }

  /**
   * The user's enabled providers with their models, then the platform entry. A provider whose
   * model list is missing is probed once with its stored key and the list kept.
   */
  async modelList(owner: Owner) {
    const enabled = (await this.deps.directory.list(owner)).filter((provider) => provider.enabled);
    const records = [];
    for (const provider of enabled) {
      let models = provider.availableModels?.map(model);
      if (models === undefined) {
        models = await this.catalog(provider.modelProviderName as ProviderName, this.deps.secretBox.decrypt(provider.apiKey), provider.customBaseUrl, undefined);
        await this.deps.providers.update(owner, provider.id, { availableModels: models });
        await this.deps.directory.invalidate(owner);
      }
      records.push({
        id: provider.id,
        modelProviderName: provider.modelProviderName,
        customModels: provider.customModels,
        customBase: providerBaseUrl(this.deps.config.byokBaseUrls, provider.modelProviderName as ProviderName, provider.customBaseUrl),
        availableModels: models,
      });
    }
    return [...records, this.platformEntry()];
  }

  platformEntry() {
    return platformCatalogEntry(this.deps.config.platformAi.baseUrl, this.deps.config.platformAi.models);
  }

  async cards(owner: Owner) {
    return (await this.deps.directory.list(owner)).map((provider) => ({
      id: provider.id,
      modelProviderName: provider.modelProviderName,
      enabled: provider.enabled,
      customBaseUrl: provider.customBaseUrl,
      modelCount: provider.availableModels?.length ?? 0,
      createdAt: provider.createdAt,
      updatedAt: provider.updatedAt,
    }));
  }

  /**
   * Changes a provider picked by id or name (`selector`), or, without one, by the name in the body
   * (which then selects rather than renames).
   */
  async patch(space: Space, selector: string | undefined, input: PatchInput) {
    const { owner } = space;
    const provider = selector === undefined ? await this.selectByBody(owner, input.modelProviderName) : await this.find(owner, selector);
    const changes: ByokProviderChanges = {};
    if (selector !== undefined && input.modelProviderName !== undefined) changes.modelProviderName = input.modelProviderName;
    if (input.customModels !== undefined) changes.customModels = input.customModels;
    if (input.enabled !== undefined) changes.enabled = input.enabled;
    if (input.availableModels !== undefined) changes.availableModels = input.availableModels?.map(model) ?? null;
    if (input.customBaseURL !== undefined) {
      if (input.customBaseURL !== null) await this.deps.policy.check(input.customBaseURL);
      changes.customBaseUrl = input.customBaseURL;
    }
    if ((changes.modelProviderName ?? provider.modelProviderName) === 'custom' && (changes.customBaseUrl === undefined ? provider.customBaseUrl : changes.customBaseUrl) === null) {
      throw new AppError('BAD_REQUEST', 'A custom provider needs a customBaseURL');
    }
    try {
      const updated = await this.deps.providers.update(owner, provider.id, changes);
      if (updated === undefined) throw new AppError('NOT_FOUND', 'No such provider');
      const details = { providerId: updated.id, modelProviderName: updated.modelProviderName, fields: Object.keys(changes).sort(), enabled: updated.enabled };
      await this.deps.audit.record(space, [{ action: 'settings.changed', target: `${updated.modelProviderName} key`, details }]);
      return { id: updated.id, modelProviderName: updated.modelProviderName, enabled: updated.enabled, updatedAt: updated.updatedAt.toISOString() };
    } catch (error) {
      if (isUniqueViolation(error)) throw new AppError('CONFLICT', `You already have a ${changes.modelProviderName} key`);
      throw error;
    } finally {
      await this.deps.directory.invalidate(owner);
    }
  }

  async remove(space: Space, selector: string): Promise<void> {
    const { owner } = space;
    const provider = await this.find(owner, selector);
    const removed = await this.deps.providers.delete(owner, provider.id);
    await this.deps.directory.invalidate(owner);
    if (removed) {
      const details = { providerId: provider.id, modelProviderName: provider.modelProviderName };
      await this.deps.audit.record(space, [{ action: 'key.removed', target: `${provider.modelProviderName} key`, details }]);
    }
  }

  /** By UUID, or by provider name as an alias; another user's provider is simply not found. */
  private async find(owner: Owner, selector: string): Promise<ByokProvider> {
    const provider = isUuid(selector) ? await this.deps.providers.findOwned(owner, selector) : await this.deps.providers.findByName(owner, selector);
    if (provider === undefined) throw new AppError('NOT_FOUND', 'No such provider');
    return provider;
  }

  private async selectByBody(owner: Owner, name: string | undefined) {
    if (name === undefined) throw new AppError('BAD_REQUEST', 'Name the provider: modelProviderName in the body, or its id in the path');
    const provider = await this.deps.providers.findByName(owner, name);
    if (provider === undefined) throw new AppError('BAD_REQUEST', `You have no ${name} key`);
    return provider;
  }

  /**
   * The provider's chat models for a key. A user-defined list stands in for (or narrows) the
   * catalog: gateways without a /models endpoint are usable through it.
   */
  private async catalog(name: ProviderName, apiKey: string, customBaseUrl: string | null, customList: CatalogModel[] | undefined): Promise<CatalogModel[]> {
    const baseUrl = providerBaseUrl(this.deps.config.byokBaseUrls, name, customBaseUrl);
    if (customBaseUrl !== null) await this.deps.policy.check(baseUrl);
    let probed: CatalogModel[] | undefined;
    try {
      probed = await fetchCatalog({ provider: name, apiKey, baseUrl }, { timeoutMs: this.deps.catalogTimeoutMs, fetch: customBaseUrl === null ? undefined : this.deps.policy.fetch });
    } catch (error) {
      if (!(error instanceof CatalogError)) throw error;
      if (error.kind === 'rejected') throw new AppError('BAD_REQUEST', `${name} rejected the API key`);
      if (customList === undefined) {
        // The user's own endpoint failing is theirs to fix; a public provider failing is ours to report.
        const code = name === 'custom' || customBaseUrl !== null ? 'BAD_REQUEST' : 'UNAVAILABLE';
        const reason = error.kind === 'unreachable' ? 'could not be reached' : 'answered with something that is not a model list';
        throw new AppError(code, `${name} at ${baseUrl} ${reason}`);
      }
    }
    if (customList === undefined) return probed!;
    return customList.map((entry) => ({ ...entry, contextLength: entry.contextLength ?? probed?.find((known) => known.id === entry.id)?.contextLength ?? null }));
  }
}
