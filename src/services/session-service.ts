import { getJson, setJson, type KeyValueStore } from '../adapters/kv/key-value-store.js';
import type { Session, SessionUserAgent } from '../db/schema/index.js';
import { AppError } from '../lib/app-error.js';
import { randomHex, sha256Hex } from '../lib/crypto/tokens.js';
import type { Logger } from '../lib/logger.js';
import { parseUserAgent } from '../lib/user-agent.js';
import type { SessionRepository } from '../repositories/session-repository.js';

export const SESSION_TTL_SECONDS = 30 * 24 * 60 * 60;

export interface SessionInfo {
  id: string;
  userId: string;
  createdAt: string;
  expiresAt: string | null;
  userAgent: SessionUserAgent | null;
}

const cacheKey = (id: string) => `session:${id}`;

function toInfo(session: Session): SessionInfo {
  return {
    id: session.id,
    userId: session.userId,
    createdAt: session.createdAt.toISOString(),
    expiresAt: session.expiresAt?.toISOString() ?? null,
    userAgent: session.userAgent,
  };
}

/**
 * Sessions live in the database (the truth) and are mirrored in the key-value store under
 * `session:<id>`. The cookie holds a random token; its SHA-256 is the id, so neither a database
 * dump nor the cache holds a usable session.
 */
export class SessionService {
  constructor(
    private readonly sessions: SessionRepository,
    private readonly kv: KeyValueStore,
    private readonly log: Logger,
  ) {}

  async create(userId: string, userAgentHeader: string | undefined): Promise<{ token: string; session: SessionInfo }> {
    const token = randomHex(32);
    const now = Date.now();
    const session = toInfo(
      await this.sessions.create({
        id: sha256Hex(token),
        userId,
        createdAt: new Date(now),
        expiresAt: new Date(now + SESSION_TTL_SECONDS * 1000),
        userAgent: parseUserAgent(userAgentHeader),
      }),
    );
    await this.cache(session);
    return { token, session };
  }

  /** The session a cookie token names, if it is still valid. */
  async resolve(token: string): Promise<SessionInfo | null> {
    if (!/^[0-9a-f]{64}$/.test(token)) return null;
    const id = sha256Hex(token);
    const cached = await getJson<SessionInfo>(this.kv, cacheKey(id)).catch((error: unknown) => {
      this.log.warn({ err: error }, 'session cache unavailable; reading the database');
      return null;
    });
    if (cached !== null && !isExpired(cached)) return cached;
    const stored = await this.sessions.findActive(id);
    if (stored === undefined) return null;
    const session = toInfo(stored);
    await this.cache(session);
    return session;
  }

  async listForUser(userId: string): Promise<SessionInfo[]> {
    return (await this.sessions.listActiveForUser(userId)).map(toInfo);
  }

  async revoke(id: string): Promise<void> {
    await this.sessions.delete(id);
    await this.uncache([id]);
  }

  /** Revokes every session of the user but `keepId`, if given. */
  async revokeAll(userId: string, keepId?: string): Promise<void> {
    await this.uncache(await this.sessions.deleteForUser(userId, keepId));
  }

  /** Drops cache entries after the rows are gone; a failure here must not leave a revoked session usable. */
  async uncache(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    try {
      await this.kv.delete(...ids.map(cacheKey));
    } catch (error) {
      this.log.error({ err: error }, 'could not drop revoked sessions from the cache');
      throw new AppError('UNAVAILABLE', 'The session store is unavailable; try again');
    }
  }

  private async cache(session: SessionInfo) {
    const ttl = session.expiresAt === null ? SESSION_TTL_SECONDS : (Date.parse(session.expiresAt) - Date.now()) / 1000;
    if (ttl <= 0) return;
    await setJson(this.kv, cacheKey(session.id), session, Math.min(ttl, SESSION_TTL_SECONDS)).catch((error: unknown) => {
      this.log.warn({ err: error }, 'could not cache a session');
    });
  }
}

const isExpired = (session: SessionInfo) => session.expiresAt !== null && Date.parse(session.expiresAt) <= Date.now();
