import type { SecretBox } from '../lib/crypto/secret-box.js';

/** A connection that may have sent a delivery, with its webhook secret decrypted for the signature or token check. */
export interface WebhookCandidate<Row> {
  row: Row;
  secret: string;
}

export interface WebhookConnectionCacheOptions<Key, Row> {
  /** The connections of one repository or project, as stored now. */
  read: (key: Key) => Promise<Row[]>;
  secretBox: SecretBox;
  /** How long another process's change may go unseen here (decisions.md §12): the comment path's bound. */
  ttlMs?: number;
  /** Repositories kept; the oldest entry goes first. */
  maxEntries?: number;
  now?: () => number;
}

interface Entry<Row> {
  expiresAt: number;
  candidates: Promise<Array<WebhookCandidate<Row>>>;
}

/**
 * The connections of each repository a host's webhook has seen, so a delivery costs no read of the
 * connections table (decisions.md §12, §16). This process's connects, disconnects and broken marks
 * drop the repository's entry at once. What it may still hold from another process is made harmless
 * where it matters: a pull-request delivery is stored only if the intake statement finds the
 * connection with the secret that was matched (else the caller reads again), a delivery matching
 * nothing cached is checked against a fresh read before its 401 (a new connection counts at once),
 * and a comment's command is dropped by the worker when its connection is gone.
 */
export class WebhookConnectionCache<Key, Row extends { id: string; webhookSecret: string }> {
  private readonly entries = new Map<Key, Entry<Row>>();
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(private readonly options: WebhookConnectionCacheOptions<Key, Row>) {
    this.ttlMs = options.ttlMs ?? 30_000;
    this.maxEntries = options.maxEntries ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  /** The repository's connections, from the cache while its entry is fresh. */
  candidates(key: Key): Promise<Array<WebhookCandidate<Row>>> {
    const entry = this.entries.get(key);
    if (entry !== undefined && entry.expiresAt > this.now()) return entry.candidates;
    return this.read(key);
  }

  /** The repository's connections as stored now; the entry is replaced. */
  read(key: Key): Promise<Array<WebhookCandidate<Row>>> {
    const candidates = this.options.read(key).then((rows) => rows.map((row) => ({ row, secret: this.options.secretBox.decrypt(row.webhookSecret) })));
    const entry: Entry<Row> = { expiresAt: this.now() + this.ttlMs, candidates };
    this.entries.delete(key);
    this.entries.set(key, entry);
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    // A failed read is not kept; an entry dropped or replaced meanwhile stays so.
    candidates.catch(() => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    });
    return candidates;
  }

  /** A connection of the repository was added, removed or changed on this process. */
  forget(key: Key): void {
    this.entries.delete(key);
  }

  /** For a change that names the connection only (a broken mark): its repository's entry, wherever it is. */
  async forgetConnection(connectionId: string): Promise<void> {
    for (const [key, entry] of [...this.entries]) {
      const candidates = await entry.candidates.catch(() => []);
      if (candidates.some((candidate) => candidate.row.id === connectionId) && this.entries.get(key) === entry) this.entries.delete(key);
    }
  }
}
