import type { GitTree } from '../../adapters/github/github-client.js';

/**
 * Where a repository's code at one commit comes from. GitHub's implementation reads its REST API;
 * another code host (GitLab's archive API) implements the same three reads.
 */
export interface SnapshotSource {
  /** Names the cache folder: the host (`api.github.com`) and the repository (`owner/name`). */
  readonly host: string;
  readonly repository: string;
  /** The commit's files as a gzipped tar whose entries sit under one top folder, streamed. */
  archive(commit: string): Promise<ReadableStream<Uint8Array>>;
  /** Every file of the commit with its size. */
  listFiles(commit: string): Promise<GitTree>;
  /** One file at the commit; null when it does not exist there. */
  readFile(commit: string, path: string): Promise<string | null>;
}
