import { getJson, setJson, type KeyValueStore } from '../adapters/kv/key-value-store.js';
import type { ByokProvider } from '../db/schema/index.js';
import type { ByokProviderRepository } from '../repositories/byok-provider-repository.js';

export const BYOK_CACHE_TTL_SECONDS = 86_400;
export const byokCacheKey = (userId: string) => `byok:${userId}`;

/** A provider as cached: the key stays sealed (AES-256-GCM) in the cache as in the database. */
export type CachedProvider = Omit<ByokProvider, 'createdAt' | 'updatedAt' | 'userId'> & { createdAt: string; updatedAt: string };

const toCached = ({ userId: _userId, createdAt, updatedAt, ...rest }: ByokProvider): CachedProvider => ({
  ...rest,
  createdAt: createdAt.toISOString(),
  updatedAt: updatedAt.toISOString(),
});

/**
 * A user's providers, read through the `byok:<userId>` cache (24 h). Every change goes through the
 * repository and then `invalidate`, so the cache never outlives what it mirrors.
 */
export class ByokDirectory {
  constructor(
    private readonly providers: ByokProviderRepository,
    private readonly kv: KeyValueStore,
  ) {}

  async list(userId: string): Promise<CachedProvider[]> {
    const cached = await getJson<CachedProvider[]>(this.kv, byokCacheKey(userId)).catch(() => null);
    if (cached !== null) return cached;
    const rows = (await this.providers.listForUser(userId)).map(toCached);
    await setJson(this.kv, byokCacheKey(userId), rows, BYOK_CACHE_TTL_SECONDS).catch(() => undefined);
    return rows;
  }

  async invalidate(userId: string): Promise<void> {
    await this.kv.delete(byokCacheKey(userId));
  }
}
