import type { Redis } from 'ioredis';
import type { KeyValueStore } from './key-value-store.js';

const DELETE_IF_EQUALS = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0";

/** The store shared by every API and worker process when REDIS_URL is set. */
export class RedisKeyValueStore implements KeyValueStore {
  constructor(private readonly redis: Redis) {}

  get(key: string): Promise<string | null> {
    return this.redis.get(key);
  }

  async set(key: string, value: string, ttlSeconds?: number): Promise<void> {
    if (ttlSeconds === undefined) await this.redis.set(key, value);
    // Milliseconds: rounding a fractional TTL up to whole seconds would keep entries (sessions) alive too long.
    else await this.redis.set(key, value, 'PX', Math.max(1, Math.ceil(ttlSeconds * 1000)));
  }

  take(key: string): Promise<string | null> {
    return this.redis.getdel(key);
  }

  async delete(...keys: string[]): Promise<void> {
    if (keys.length > 0) await this.redis.del(...keys);
  }

  async setIfAbsent(key: string, value: string, ttlSeconds: number): Promise<boolean> {
    return (await this.redis.set(key, value, 'PX', Math.max(1, Math.ceil(ttlSeconds * 1000)), 'NX')) === 'OK';
  }

  async deleteIfEquals(key: string, value: string): Promise<void> {
    // Read and delete in one step on the server: between a GET and a DEL, the entry could expire and be another's.
    await this.redis.eval(DELETE_IF_EQUALS, 1, key, value);
  }

  async ping(): Promise<void> {
    await this.redis.ping();
  }

  /** The connection belongs to whoever opened it; see redis-connection.ts. */
  async close(): Promise<void> {}
}
