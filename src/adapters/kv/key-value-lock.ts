import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { KeyValueStore } from './key-value-store.js';

export interface LockOptions {
  /** How long the lock holds if its holder dies without releasing it. */
  ttlSeconds: number;
  /** How long to wait for it before giving up with an error. */
  waitMs: number;
}

/** How often a waiter asks again for a lock held in another process. */
const POLL_MS = 25;

/**
 * Releases in this process, by key: a waiter here asks again at once rather than at its next poll.
 * Only a hint (a key may name another store's lock): the waiter still has to win `setIfAbsent`.
 */
const released = new EventEmitter().setMaxListeners(0);

/** Until `key` is released in this process, or `POLL_MS` has passed. */
function releaseOrPoll(key: string): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      released.off(key, done);
      resolve();
    };
    const timer = setTimeout(done, POLL_MS);
    released.once(key, done);
  });
}

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
    await releaseOrPoll(key);
  }
  try {
    return await work();
  } finally {
    await store.deleteIfEquals(key, token);
    released.emit(key);
  }
}
