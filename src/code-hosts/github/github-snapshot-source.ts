import { GitHubApiError, type GitHubClient } from '../../adapters/github/github-client.js';
import type { SnapshotSource, SnapshotTree } from '../../code-context/snapshot/snapshot-source.js';

/** Runs one GitHub call with the pull request's token (`GitHubTokens.read`: renewed once on a 401). */
export type WithToken = <T>(call: (token: string | undefined) => Promise<T>) => Promise<T>;

/** A GitHub repository read with the same token as the pull request's diff (decisions.md §11). */
export class GitHubSnapshotSource implements SnapshotSource {
  readonly host: string;

  constructor(
    private readonly github: GitHubClient,
    apiUrl: string,
    readonly repository: string,
    readonly reader: string,
    private readonly withToken: WithToken,
  ) {
    this.host = new URL(apiUrl).host;
  }

  /** GitHub answers a repository the token may not read as 404, like one that does not exist. */
  refuses(error: unknown): boolean {
    return error instanceof GitHubApiError && (error.status === 401 || error.status === 403 || error.status === 404);
  }

  archive(commit: string): Promise<ReadableStream<Uint8Array>> {
    return this.withToken((token) => this.github.tarball(this.repository, commit, token));
  }

  listFiles(commit: string): Promise<SnapshotTree> {
    return this.withToken((token) => this.github.tree(this.repository, commit, token));
  }

  readFile(commit: string, path: string): Promise<string | null> {
    return this.withToken((token) => this.github.fileContent(this.repository, path, commit, token));
  }
}
