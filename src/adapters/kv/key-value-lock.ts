import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { KeyValueStore } from './key-value-store.js';

export interface LockOptions {
  /** How long the lock holds if its holder dies without releasing it. */
  ttlSeconds: number;
  /** How long to wait for it before giving up with an error. */
  waitMs: number;
}

const POLL_MS = 25;

/**
 * Runs `work` while holding `key` in the store shared by every process that could do the same work
 * (Redis at scale, the process's own store embedded), waiting for the holder before it; released
 * when `work` settles. Each holder releases only its own lock, so one that outlived its TTL frees
 * nobody else's.
 */
export async function withLock<T>(store: KeyValueStore, key: string, options: LockOptions, work: () => Promise<T>): Promise<T> {
  const token = randomUUID();
  const deadline = Date.now() + options.waitMs;
  while (!(await store.setIfAbsent(key, token, options.ttlSeconds))) {
    if (Date.now() >= deadline) throw new Error(`${key} stayed locked for ${options.waitMs} ms`);
    await sleep(POLL_MS);
  }
  try {
    return await work();
  } finally {
    await store.deleteIfEquals(key, token);
  }
}
