import type { KeyValueStore } from './key-value-store.js';

interface Entry {
  value: string;
  expiresAt: number;
}

const SWEEP_INTERVAL_MS = 60_000;

/** The embedded store: one process, entries gone on restart (the database still has the truth). */
export class MemoryKeyValueStore implements KeyValueStore {
  private readonly entries = new Map<string, Entry>();
  private readonly sweeper = setInterval(() => this.sweep(), SWEEP_INTERVAL_MS).unref();

  async get(key: string): Promise<string | null> {
    return this.live(key);
  }

  async set(key: string, value: string, ttlSeconds?: number): Promise<void> {
    this.entries.set(key, { value, expiresAt: ttlSeconds === undefined ? Infinity : Date.now() + ttlSeconds * 1000 });
  }

  // No await between the read and the delete: two takes of one key cannot both get its value.
  async take(key: string): Promise<string | null> {
    const value = this.live(key);
    this.entries.delete(key);
    return value;
  }

  async delete(...keys: string[]): Promise<void> {
    for (const key of keys) this.entries.delete(key);
  }

  // No await between the read and the write: two callers cannot both find the key free.
  async setIfAbsent(key: string, value: string, ttlSeconds: number): Promise<boolean> {
    if (this.live(key) !== null) return false;
    this.entries.set(key, { value, expiresAt: Date.now() + ttlSeconds * 1000 });
    return true;
  }

  async deleteIfEquals(key: string, value: string): Promise<void> {
    if (this.live(key) === value) this.entries.delete(key);
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.entries.clear();
  }

  /** The key's value, null when absent or expired (an expired entry is dropped). */
  private live(key: string): string | null {
    const entry = this.entries.get(key);
    if (entry === undefined) return null;
    if (entry.expiresAt <= Date.now()) {
      this.entries.delete(key);
      return null;
    }
    return entry.value;
  }

  private sweep() {
    const now = Date.now();
    for (const [key, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(key);
  }
}
