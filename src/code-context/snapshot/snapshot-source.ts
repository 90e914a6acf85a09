/** A commit's files with their sizes; `truncated` when the host listed only part of them. */
export interface SnapshotTree {
  truncated: boolean;
  files: Array<{ path: string; size: number }>;
}

/**
 * Where a repository's code at one commit comes from. GitHub's implementation reads its REST API;
 * another code host (GitLab's archive API) implements the same three reads.
 */
export interface SnapshotSource {
  /** Names the cache folder: the host (`api.github.com`) and the repository (`owner/name`). */
  readonly host: string;
  readonly repository: string;
  /** Whose credentials read it (an installation, a user, a connection's token): a refusal is remembered for them only. */
  readonly reader: string;
  /**
   * Whether `error` is the host refusing these credentials the repository's code (no access, no
   * such repository), which every other commit would meet too; a network failure or a missing
   * commit is not.
   */
  refuses(error: unknown): boolean;
  /**
   * The commit's files as a gzipped tar whose entries sit under one top folder, streamed. A host
   * whose API has none (Bitbucket Cloud, decisions.md §16) leaves it out: its snapshots are read
   * file by file (`files` mode).
   */
  archive?(commit: string): Promise<ReadableStream<Uint8Array>>;
  /** Every file of the commit with its size. */
  listFiles(commit: string): Promise<SnapshotTree>;
  /** One file at the commit; null when it does not exist there. */
  readFile(commit: string, path: string): Promise<string | null>;
}
