import { FileRefusedError, type ChangeReader } from '../code-host.js';
import type { BitbucketClient, BitbucketTarget } from './bitbucket-client.js';
import { BitbucketApiError, BitbucketConnectionBrokenError } from './bitbucket-errors.js';
import { BitbucketSnapshotSource } from './bitbucket-snapshot-source.js';

/** What the reader knows of its pull request without asking Bitbucket. */
export interface BitbucketReadRef {
  target: BitbucketTarget;
  number: number;
  /** Bitbucket's repository UUID (with braces): unique across workspaces and renames. */
  repositoryUuid: string;
  /** The destination commit of the stored webhook payload (`pullrequest.destination.commit.hash`), when it has one. */
  destinationCommit: string | null;
}

/**
 * Reading a Bitbucket pull request (decisions.md §16 Reading): its diff (one document after
 * Bitbucket's redirect), a push's diff from `/diff/{newHead}..{oldHead}`, files from `/src`, all with
 * the connection's credentials. A 555 (a diff too large) fails the review with that reason.
 */
export class BitbucketChangeReader implements ChangeReader {
  readonly repositoryKey: string;

  constructor(
    private readonly client: BitbucketClient,
    private readonly pr: BitbucketReadRef,
    /** What a failed read becomes (the pipeline's: a broken connection marked, the job ended or retried). */
    private readonly failure: (error: unknown) => Promise<never> = (error) => {
      throw error;
    },
  ) {
    this.repositoryKey = `bitbucket:${pr.repositoryUuid}`;
  }

  /** The destination's commit (fixed, so `.ai-review.yml` is cached by it): the payload's, else the pull request's, else its branch. */
  async configRef(): Promise<string> {
    if (this.pr.destinationCommit !== null) return this.pr.destinationCommit;
    const pullRequest = await this.client.pullRequest(this.pr.target, this.pr.number).catch(this.failure);
    return pullRequest.destination.commit?.hash ?? pullRequest.destination.branch.name;
  }

  snapshotSource(): BitbucketSnapshotSource {
    return new BitbucketSnapshotSource(this.client, this.pr.target, this.failure);
  }

  changeDiff(): Promise<string> {
    return this.client.pullRequestDiff(this.pr.target, this.pr.number).catch(this.failure);
  }

  /** Bitbucket's `a..b` is `git diff b a` (facts §2): the new head comes first. */
  pushDiff(from: string, to: string): Promise<string | null> {
    return this.client.commitsDiff(this.pr.target, to, from).catch(this.failure);
  }

  /** Payloads and the API name commits by 12 characters (facts §1): the full hash is `GET /commit/{hash}`'s. */
  fullCommitSha(sha: string): Promise<string> {
    return this.client.fullHash(this.pr.target, sha).catch(this.failure);
  }

  /** Bitbucket refusing one file leaves `.ai-review.yml` at its defaults; a refused token breaks the connection instead. */
  async fileAt(path: string, ref: string): Promise<string | null> {
    try {
      return await this.client.fileAt(this.pr.target, ref, path);
    } catch (error) {
      if (error instanceof BitbucketApiError && !(error instanceof BitbucketConnectionBrokenError) && error.status >= 400 && error.status < 500) {
        throw new FileRefusedError(error.status, 'Bitbucket');
      }
      return this.failure(error);
    }
  }
}
