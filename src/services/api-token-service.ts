import { getJson, setJson, type KeyValueStore } from '../adapters/kv/key-value-store.js';
import type { ApiToken } from '../db/schema/index.js';
import { AppError } from '../lib/app-error.js';
import { randomBase62, sha256Hex } from '../lib/crypto/tokens.js';
import type { Logger } from '../lib/logger.js';
import type { ApiTokenRepository } from '../repositories/api-token-repository.js';

/** decisions.md §17: `prt_` and at least 32 base62 characters; ours carry 40 (about 238 bits). */
export const API_TOKEN_PREFIX = 'prt_';
const RANDOM_LENGTH = 40;
const TOKEN_PATTERN = /^prt_[0-9A-Za-z]{32,128}$/;
export const MAX_TOKENS_PER_USER = 50;
/** `lastUsedAt` moves at most this often. */
export const LAST_USED_INTERVAL_MS = 60_000;
/** A cache entry lives at most this long; a miss costs one query. */
const CACHE_TTL_SECONDS = 24 * 60 * 60;
/** Past this many remembered uses, entries older than the interval are dropped. */
const REMEMBERED_USES = 10_000;

/** What the authentication hook knows about the token of a request. */
export interface ApiTokenInfo {
  id: string;
  userId: string;
  expiresAt: string;
}

export interface ApiTokenView {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string;
}

export interface CreatedApiToken extends Omit<ApiTokenView, 'lastUsedAt'> {
  /** The token itself: answered this once, never stored. */
  token: string;
}

const cacheKey = (tokenHash: string) => `api-token:${tokenHash}`;

const view = (token: ApiToken): ApiTokenView => ({
  id: token.id,
  name: token.name,
  prefix: token.prefix,
  createdAt: token.createdAt.toISOString(),
  lastUsedAt: token.lastUsedAt?.toISOString() ?? null,
  expiresAt: token.expiresAt.toISOString(),
});

/**
 * Personal API tokens (decisions.md §17). Like sessions, the database holds the truth (the token's
 * SHA-256, never the token) and the key-value store mirrors it under `api-token:<hash>`, so a
 * request with a token costs what a request with a cookie costs; revoking drops the entry at once.
 */
export class ApiTokenService {
  /** When this process last wrote each token's `lastUsedAt`: no database write per request. */
  private readonly lastTouched = new Map<string, number>();

  constructor(
    private readonly tokens: ApiTokenRepository,
    private readonly kv: KeyValueStore,
    private readonly log: Logger,
  ) {}

  async create(userId: string, input: { name: string; expiresInDays: number }): Promise<CreatedApiToken> {
    const token = API_TOKEN_PREFIX + randomBase62(RANDOM_LENGTH);
    const now = Date.now();
    const stored = await this.tokens.createWithinLimit(
      {
        userId,
        name: input.name,
        tokenHash: sha256Hex(token),
        prefix: token.slice(0, 8),
        createdAt: new Date(now),
        expiresAt: new Date(now + input.expiresInDays * 24 * 60 * 60 * 1000),
      },
      MAX_TOKENS_PER_USER,
    );
    if (stored === undefined) throw new AppError('CONFLICT', `You already have ${MAX_TOKENS_PER_USER} tokens; revoke one first`);
    const { lastUsedAt: _never, ...created } = view(stored);
    return { ...created, token };
  }

  async list(userId: string): Promise<ApiTokenView[]> {
    return (await this.tokens.listActiveForUser(userId)).map(view);
  }

  async revoke(userId: string, id: string): Promise<void> {
    const tokenHash = await this.tokens.delete(userId, id);
    if (tokenHash === undefined) throw new AppError('NOT_FOUND', 'Token not found');
    await this.uncache([tokenHash]);
  }

  /** A password reset revokes every token of the user. */
  async revokeAll(userId: string): Promise<void> {
    await this.uncache(await this.tokens.deleteForUser(userId));
  }

  /** The token a `Bearer` credential names, if it is still valid; notes its use. */
  async resolve(token: string): Promise<ApiTokenInfo | null> {
    if (!TOKEN_PATTERN.test(token)) return null;
    const tokenHash = sha256Hex(token);
    let info = await getJson<ApiTokenInfo>(this.kv, cacheKey(tokenHash)).catch((error: unknown) => {
      this.log.warn({ err: error }, 'token cache unavailable; reading the database');
      return null;
    });
    if (info === null || isExpired(info)) {
      const stored = await this.tokens.findActiveByHash(tokenHash);
      if (stored === undefined) return null;
      info = { id: stored.id, userId: stored.userId, expiresAt: stored.expiresAt.toISOString() };
      await this.cache(tokenHash, info);
    }
    await this.noteUse(info.id);
    return info;
  }

  /** Drops cache entries after the rows are gone; a failure here must not leave a revoked token usable. */
  async uncache(tokenHashes: string[]): Promise<void> {
    if (tokenHashes.length === 0) return;
    try {
      await this.kv.delete(...tokenHashes.map(cacheKey));
    } catch (error) {
      this.log.error({ err: error }, 'could not drop revoked tokens from the cache');
      throw new AppError('UNAVAILABLE', 'The session store is unavailable; try again');
    }
  }

  /**
   * At most one write a minute per token and process; the repository's condition keeps it to one a
   * minute across processes. A failed write costs only the timestamp.
   */
  private async noteUse(id: string): Promise<void> {
    const now = Date.now();
    const last = this.lastTouched.get(id);
    if (last !== undefined && now - last < LAST_USED_INTERVAL_MS) return;
    if (this.lastTouched.size >= REMEMBERED_USES) {
      for (const [key, at] of this.lastTouched) if (now - at >= LAST_USED_INTERVAL_MS) this.lastTouched.delete(key);
    }
    this.lastTouched.set(id, now);
    await this.tokens.touch(id, new Date(now), LAST_USED_INTERVAL_MS).catch((error: unknown) => {
      this.log.warn({ err: error }, 'could not record when a token was used');
    });
  }

  private async cache(tokenHash: string, info: ApiTokenInfo) {
    const ttl = Math.min((Date.parse(info.expiresAt) - Date.now()) / 1000, CACHE_TTL_SECONDS);
    if (ttl <= 0) return;
    await setJson(this.kv, cacheKey(tokenHash), info, ttl).catch((error: unknown) => {
      this.log.warn({ err: error }, 'could not cache a token');
    });
  }
}

const isExpired = (info: ApiTokenInfo) => Date.parse(info.expiresAt) <= Date.now();
