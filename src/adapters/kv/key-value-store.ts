/**
 * A cache beside the database (sessions, BYOK records, OAuth state), and short locks between the
 * processes that share it. The database stays the source of truth: a lost entry costs a query, never
 * data.
 */
export interface KeyValueStore {
  get(key: string): Promise<string | null>;
  set(key: string, value: string, ttlSeconds?: number): Promise<void>;
  /** Reads and deletes in one step, so a single-use value can be used once. */
  take(key: string): Promise<string | null>;
  delete(...keys: string[]): Promise<void>;
  /** Sets `key` only when it holds nothing; true when this call set it (a lock taken). */
  setIfAbsent(key: string, value: string, ttlSeconds: number): Promise<boolean>;
  /** Deletes `key` only while it still holds `value`: a lock is released by its holder, never by a later one. */
  deleteIfEquals(key: string, value: string): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export async function getJson<T>(store: KeyValueStore, key: string): Promise<T | null> {
  const raw = await store.get(key);
  return raw === null ? null : (JSON.parse(raw) as T);
}

export const setJson = (store: KeyValueStore, key: string, value: unknown, ttlSeconds?: number) =>
  store.set(key, JSON.stringify(value), ttlSeconds);
