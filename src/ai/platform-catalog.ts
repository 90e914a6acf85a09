import type { PlatformModel } from '../config/env-schema.js';
import type { CatalogModel } from './catalog/provider-catalog.js';

/** The platform's entry appended to model catalogs, as the API document describes it. */
export interface PlatformCatalogEntry {
  id: '1';
  modelProviderName: 'platform';
  customModels: false;
  customBase: string | null;
  availableModels: CatalogModel[];
}

export function platformCatalogEntry(baseUrl: string | undefined, models: PlatformModel[]): PlatformCatalogEntry {
  return {
    id: '1',
    modelProviderName: 'platform',
    customModels: false,
    customBase: baseUrl === undefined ? null : `${baseUrl}/chat/completions`,
    // Without an endpoint the platform serves nothing, so it offers nothing.
    availableModels: baseUrl === undefined ? [] : models.map(({ id, name, contextLength }) => ({ id, name, contextLength })),
  };
}
