import { getJson, setJson, type KeyValueStore } from '../adapters/kv/key-value-store.js';
import type { ByokProvider } from '../db/schema/index.js';
import { ownerKey, type Owner } from '../domain/owners.js';
import type { ByokProviderRepository } from '../repositories/byok-provider-repository.js';

export const BYOK_CACHE_TTL_SECONDS = 86_400;
/** `byok:<userId>` for a user, `byok:org:<orgId>` for an organization. */
export const byokCacheKey = (owner: Owner) => `byok:${ownerKey(owner)}`;

/** A provider as cached: the key stays sealed (AES-256-GCM) in the cache as in the database. */
export type CachedProvider = Omit<ByokProvider, 'createdAt' | 'updatedAt' | 'userId' | 'orgId'> & { createdAt: string; updatedAt: string };

const toCached = ({ userId: _userId, orgId: _orgId, createdAt, updatedAt, ...rest }: ByokProvider): CachedProvider => ({
  ...rest,
  createdAt: createdAt.toISOString(),
  updatedAt: updatedAt.toISOString(),
});

/**
 * A user's or an organization's providers, read through the `byok:…` cache (24 h). Every change goes through the
 * repository and then `invalidate`, so the cache never outlives what it mirrors.
 */
export class ByokDirectory {
  constructor(
    private readonly providers: ByokProviderRepository,
    private readonly kv: KeyValueStore,
  ) {}

  async list(owner: Owner): Promise<CachedProvider[]> {
    const cached = await getJson<CachedProvider[]>(this.kv, byokCacheKey(owner)).catch(() => null);
    if (cached !== null) return cached;
    const rows = (await this.providers.list(owner)).map(toCached);
    await setJson(this.kv, byokCacheKey(owner), rows, BYOK_CACHE_TTL_SECONDS).catch(() => undefined);
    return rows;
  }

  async invalidate(owner: Owner): Promise<void> {
    await this.kv.delete(byokCacheKey(owner));
  }
}
