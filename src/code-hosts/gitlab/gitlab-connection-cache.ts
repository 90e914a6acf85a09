import type { GitLabConnection } from '../../db/schema/index.js';
import type { SecretBox } from '../../lib/crypto/secret-box.js';
import type { GitLabConnectionRepository } from '../../repositories/gitlab-connection-repository.js';

/** A connection of a project, with its webhook secret decrypted for `matchWebhookToken`. */
export interface WebhookCandidate {
  row: GitLabConnection;
  secret: string;
}

export interface GitLabConnectionCacheOptions {
  connections: Pick<GitLabConnectionRepository, 'listForProjectId'>;
  secretBox: SecretBox;
  /** How long another process's change may go unseen here (decisions.md §12): the note path's bound. */
  ttlMs?: number;
  /** Projects kept; the oldest entry goes first. */
  maxProjects?: number;
  now?: () => number;
}

interface Entry {
  expiresAt: number;
  candidates: Promise<WebhookCandidate[]>;
}

/**
 * The connections of each GitLab project the webhook has seen, so a delivery costs no read of
 * `gitlab_connections` (decisions.md §12). This process's connects, disconnects and broken marks
 * drop the project's entry at once. What it may still hold from another process is made harmless
 * where it matters: a merge request delivery is stored only if the intake statement finds the
 * connection with the secret the token matched (else the caller reads again), a token matching
 * nothing cached is checked against a fresh read before its 401 (a new connection is accepted at
 * once), and a note's command is dropped by the worker when its connection is gone.
 */
export class GitLabConnectionCache {
  private readonly entries = new Map<number, Entry>();
  private readonly ttlMs: number;
  private readonly maxProjects: number;
  private readonly now: () => number;

  constructor(private readonly options: GitLabConnectionCacheOptions) {
    this.ttlMs = options.ttlMs ?? 30_000;
    this.maxProjects = options.maxProjects ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  /** The project's connections, from the cache while its entry is fresh. */
  candidates(projectId: number): Promise<WebhookCandidate[]> {
    const entry = this.entries.get(projectId);
    if (entry !== undefined && entry.expiresAt > this.now()) return entry.candidates;
    return this.read(projectId);
  }

  /** The project's connections as stored now; the entry is replaced. */
  read(projectId: number): Promise<WebhookCandidate[]> {
    const candidates = this.options.connections
      .listForProjectId(projectId)
      .then((rows) => rows.map((row) => ({ row, secret: this.options.secretBox.decrypt(row.webhookSecret) })));
    const entry: Entry = { expiresAt: this.now() + this.ttlMs, candidates };
    this.entries.delete(projectId);
    this.entries.set(projectId, entry);
    if (this.entries.size > this.maxProjects) this.entries.delete(this.entries.keys().next().value!);
    // A failed read is not kept; an entry dropped or replaced meanwhile stays so.
    candidates.catch(() => {
      if (this.entries.get(projectId) === entry) this.entries.delete(projectId);
    });
    return candidates;
  }

  /** A connection of the project was added, removed or changed on this process. */
  forgetProject(projectId: number): void {
    this.entries.delete(projectId);
  }

  /** For a change that names the connection only (a broken mark): its project's entry, wherever it is. */
  async forgetConnection(connectionId: string): Promise<void> {
    for (const [projectId, entry] of [...this.entries]) {
      const candidates = await entry.candidates.catch(() => []);
      if (candidates.some((candidate) => candidate.row.id === connectionId) && this.entries.get(projectId) === entry) this.entries.delete(projectId);
    }
  }
}
