import { GitHubApiError, type GitHubClient } from '../../adapters/github/github-client.js';
import type { PullRequest } from '../../db/schema/index.js';
import { githubFailure } from './github-access.js';
import type { GitHubTokens } from '../../services/github-token.js';
import type { TokenOwner } from '../code-host.js';
import { FileRefusedError, type ChangeReader } from '../code-host.js';
import { GitHubSnapshotSource } from './github-snapshot-source.js';

export interface GitHubReaderDeps {
  github: GitHubClient;
  tokens: GitHubTokens;
  /** `GITHUB_API_URL`: its host names the snapshot cache's folder. */
  apiUrl: string;
}

/**
 * Reading a pull request on GitHub with the one token rule (installation, else the author's token,
 * else `GITHUB_TOKEN`). GitHub refusing a diff will not change by retrying: such failures come back
 * as unrecoverable jobs, the rest (5xx, network) as they are, to be retried.
 */
export class GitHubChangeReader implements ChangeReader {
  readonly repositoryKey: string;

  constructor(
    private readonly deps: GitHubReaderDeps,
    private readonly pr: PullRequest,
    private readonly owner: TokenOwner | undefined,
  ) {
    // The key `.ai-review.yml` is cached under; GitHub's is the repository's full name.
    this.repositoryKey = pr.repositoryName;
  }

  /** The pull request's base commit, as GitHub's payload gave it. */
  configRef(): Promise<string> {
    return Promise.resolve(this.pr.baseSha);
  }

  snapshotSource(): GitHubSnapshotSource {
    // The token rule reads an installation's pull requests with its token, the others with their owner's.
    const reader = this.pr.installationId === null ? `user:${this.pr.userId}` : `installation:${this.pr.installationId}`;
    return new GitHubSnapshotSource(this.deps.github, this.deps.apiUrl, this.pr.repositoryName, reader, (call) => this.read(call));
  }

  changeDiff(): Promise<string> {
    return this.read((token) => this.deps.github.pullRequestDiff(this.pr.repositoryName, this.pr.prNumber, token)).catch((error: unknown) => {
      throw githubFailure(error, 'the pull request diff');
    });
  }

  pushDiff(from: string, to: string): Promise<string | null> {
    return this.read((token) => this.deps.github.compareDiff(this.pr.repositoryName, from, to, token)).catch((error: unknown) => {
      throw githubFailure(error, 'the diff since the last review');
    });
  }

  fileAt(path: string, ref: string): Promise<string | null> {
    return githubFileRead(this.read((token) => this.deps.github.fileContent(this.pr.repositoryName, path, ref, token)));
  }

  private read<T>(call: (token: string | undefined) => Promise<T>): Promise<T> {
    return this.deps.tokens.read(this.pr, this.owner, call);
  }
}

/** GitHub refusing a file (4xx but a rate limit) is a `FileRefusedError`; anything else is retried. */
export function githubFileRead(read: Promise<string | null>): Promise<string | null> {
  return read.catch((error: unknown) => {
    if (error instanceof GitHubApiError && error.status >= 400 && error.status < 500 && error.status !== 429) throw new FileRefusedError(error.status, 'GitHub');
    throw error;
  });
}
