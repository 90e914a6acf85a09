import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withLock } from '../../src/adapters/kv/key-value-lock.js';
import { getJson, setJson, type KeyValueStore } from '../../src/adapters/kv/key-value-store.js';
import { MemoryKeyValueStore } from '../../src/adapters/kv/memory-key-value-store.js';
import { RedisKeyValueStore } from '../../src/adapters/kv/redis-key-value-store.js';
import { closeRedis, createRedisConnection } from '../../src/adapters/redis-connection.js';
import { deleteRedisPrefix, serverUrls, uniqueName } from '../helpers/backends.js';

interface StoreHarness {
  store: KeyValueStore;
  dispose(): Promise<void>;
}

interface StoreImplementation {
  name: string;
  create: () => Promise<StoreHarness>;
}

const { redisUrl } = serverUrls();

const implementations: StoreImplementation[] = [
  {
    name: 'MemoryKeyValueStore',
    create: async () => {
      const store = new MemoryKeyValueStore();
      return { store, dispose: () => store.close() };
    },
  },
];
if (redisUrl !== undefined) {
  implementations.push({
    name: 'RedisKeyValueStore',
    create: async () => {
      const prefix = `${uniqueName('kv_contract')}:`;
      const redis = createRedisConnection({ url: redisUrl, keyPrefix: prefix });
      const store = new RedisKeyValueStore(redis);
      return {
        store,
        dispose: async () => {
          await store.close();
          await closeRedis(redis);
          await deleteRedisPrefix(redisUrl, prefix);
        },
      };
    },
  });
}

/** How expiry is watched: a read every 20 ms, for up to 3 s. */
const UNTIL_EXPIRED = { timeout: 3_000, interval: 20 };

describe.each(implementations)('KeyValueStore contract: $name', ({ create }) => {
  let harness: StoreHarness;
  let store: KeyValueStore;
  // Keys are unique per test so tests never see each other's entries.
  let counter = 0;
  const key = (name: string) => `${name}:${++counter}`;

  beforeAll(async () => {
    harness = await create();
    store = harness.store;
  });
  afterAll(() => harness?.dispose());

  it('answers null for a missing key', async () => {
    expect(await store.get(key('missing'))).toBeNull();
  });

  it('returns what was set', async () => {
    const k = key('value');
    await store.set(k, 'hello, wörld ✓');
    expect(await store.get(k)).toBe('hello, wörld ✓');
  });

  it('stores the empty string as a value, not as absence', async () => {
    const k = key('empty');
    await store.set(k, '');
    expect(await store.get(k)).toBe('');
  });

  it('overwrites an existing value', async () => {
    const k = key('overwrite');
    await store.set(k, 'first');
    await store.set(k, 'second');
    expect(await store.get(k)).toBe('second');
  });

  it('expires an entry after its TTL, keeps one set without TTL, and a set without TTL clears an earlier TTL', async () => {
    const [expiring, persistent, renewed] = [key('ttl'), key('no-ttl'), key('renewed')];
    const start = Date.now();
    await store.set(expiring, 'short-lived', 1);
    await store.set(persistent, 'kept');
    await store.set(renewed, 'short-lived', 1);
    await store.set(renewed, 'kept');
    expect(await store.get(expiring)).toBe('short-lived');

    await expect.poll(() => store.get(expiring), UNTIL_EXPIRED).toBeNull();
    const elapsed = Date.now() - start;
    expect(elapsed).toBeGreaterThanOrEqual(950);
    expect(await store.take(expiring)).toBeNull();
    expect(await store.get(persistent)).toBe('kept');
    expect(await store.get(renewed)).toBe('kept');
  });

  it('honours a fractional TTL instead of rounding it up to whole seconds', async () => {
    // Session cache entries get the remaining lifetime of their session, rarely a whole number of seconds.
    const k = key('fractional');
    const start = Date.now();
    await store.set(k, 'short-lived', 0.3);
    expect(await store.get(k)).toBe('short-lived');
    await expect.poll(() => store.get(k), UNTIL_EXPIRED).toBeNull();
    const elapsed = Date.now() - start;
    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(elapsed).toBeLessThan(900);
  });

  it('take returns the value and removes it, so a second take gets null', async () => {
    const k = key('take');
    await store.set(k, 'once');
    expect(await store.take(k)).toBe('once');
    expect(await store.get(k)).toBeNull();
    expect(await store.take(k)).toBeNull();
  });

  it('take of a missing key answers null', async () => {
    expect(await store.take(key('take-missing'))).toBeNull();
  });

  it('deletes several keys at once and leaves the others', async () => {
    const [a, b, c] = [key('del'), key('del'), key('del')];
    await Promise.all([store.set(a, '1'), store.set(b, '2'), store.set(c, '3')]);
    await store.delete(a, b, key('del-missing'));
    expect(await store.get(a)).toBeNull();
    expect(await store.get(b)).toBeNull();
    expect(await store.get(c)).toBe('3');
  });

  it('accepts a delete of no keys', async () => {
    await expect(store.delete()).resolves.toBeUndefined();
  });

  it('round-trips JSON through getJson and setJson', async () => {
    const k = key('json');
    const value = { id: 'abc', count: 3, nested: { list: [1, 'two', null] }, flag: false };
    await setJson(store, k, value);
    expect(await getJson<typeof value>(store, k)).toEqual(value);
    expect(await getJson(store, key('json-missing'))).toBeNull();
  });

  it('passes the TTL of setJson on', async () => {
    const k = key('json-ttl');
    const start = Date.now();
    await setJson(store, k, { a: 1 }, 0.2);
    expect(await getJson(store, k)).toEqual({ a: 1 });
    await expect.poll(() => getJson(store, k), UNTIL_EXPIRED).toBeNull();
    expect(Date.now() - start).toBeLessThan(900);
  });

  it('two takes of one key at once: only one gets the value', async () => {
    const k = key('take-race');
    await store.set(k, 'once');
    expect((await Promise.all([store.take(k), store.take(k)])).sort()).toEqual(['once', null].sort());
  });

  it('setIfAbsent sets a free key once, even to callers at the same moment, and frees it after its TTL', async () => {
    const k = key('if-absent');
    expect(await Promise.all([store.setIfAbsent(k, 'a', 0.3), store.setIfAbsent(k, 'b', 0.3)])).toEqual([true, false]);
    expect(await store.get(k)).toBe('a');
    await expect.poll(() => store.get(k), UNTIL_EXPIRED).toBeNull();
    expect(await store.setIfAbsent(k, 'c', 1)).toBe(true);
  });

  it('deleteIfEquals deletes only while the key still holds the value', async () => {
    const k = key('if-equals');
    await store.set(k, 'mine');
    await store.deleteIfEquals(k, 'theirs');
    expect(await store.get(k)).toBe('mine');
    await store.deleteIfEquals(k, 'mine');
    expect(await store.get(k)).toBeNull();
    await expect(store.deleteIfEquals(key('if-equals-missing'), 'x')).resolves.toBeUndefined();
  });

  it('withLock runs one holder at a time, frees the lock when the work throws, and gives up after its wait', async () => {
    const k = key('lock');
    const order: string[] = [];
    const holder = (name: string) => withLock(store, k, { ttlSeconds: 10, waitMs: 5_000 }, async () => {
      order.push(`${name} in`);
      await new Promise((resolve) => setTimeout(resolve, 50));
      order.push(`${name} out`);
    });
    await Promise.all([holder('a'), holder('b')]);
    const [first, second] = [order[0]!.split(' ')[0], order[2]!.split(' ')[0]];
    expect(order).toEqual([`${first} in`, `${first} out`, `${second} in`, `${second} out`]);
    expect([first, second].sort()).toEqual(['a', 'b']);

    await expect(withLock(store, k, { ttlSeconds: 10, waitMs: 1_000 }, () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await store.get(k)).toBeNull();

    await store.set(k, 'someone else', 10);
    await expect(withLock(store, k, { ttlSeconds: 10, waitMs: 100 }, async () => 'never')).rejects.toThrow(/stayed locked/);
    expect(await store.get(k)).toBe('someone else');
  });

  it('answers ping', async () => {
    await expect(store.ping()).resolves.toBeUndefined();
  });
});
