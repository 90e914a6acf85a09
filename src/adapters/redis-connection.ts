import { Redis, type RedisOptions } from 'ioredis';

export interface RedisConnectionOptions {
  url: string;
  /** Prefix for every key, so several deployments (or test runs) can share one Redis. */
  keyPrefix?: string;
}

/**
 * A connection for commands that must fail fast when Redis is down (the caller then falls back to
 * the database or answers 503) rather than queue forever.
 */
export function createRedisConnection({ url, keyPrefix }: RedisConnectionOptions, overrides: RedisOptions = {}): Redis {
  const redis = new Redis(url, {
    keyPrefix,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    retryStrategy: (times) => Math.min(times * 200, 2_000),
    ...overrides,
  });
  // ioredis reports connection errors as events; without a listener they would crash the process.
  // They show up as failed commands where it matters.
  redis.on('error', () => undefined);
  return redis;
}

/** QUIT when connected; otherwise disconnect, since a QUIT would wait for a connection that may never come. */
export async function closeRedis(redis: Redis): Promise<void> {
  if (redis.status === 'end') return;
  if (redis.status !== 'ready') {
    redis.disconnect();
    return;
  }
  await redis.quit().catch(() => redis.disconnect());
}
