import type { GitLabClient } from './gitlab-client.js';
import { GitLabApiError, GitLabConnectionBrokenError } from './gitlab-errors.js';
import { FileRefusedError, type ChangeReader } from '../code-host.js';
import type { GitLabMergeRequestRef } from './gitlab-publisher.js';
import { GitLabSnapshotSource } from './gitlab-snapshot-source.js';

/**
 * Reading a merge request (decisions.md §12): its paged diffs assembled into `git diff` text, a
 * push from the compare API, files from the raw files API, all with the connection's token.
 */
export class GitLabChangeReader implements ChangeReader {
  /** GitLab's project ids are unique on one instance only: the cache key names the instance too. */
  readonly repositoryKey: string;

  constructor(
    private readonly client: GitLabClient,
    private readonly mr: Pick<GitLabMergeRequestRef, 'target' | 'projectId' | 'iid'>,
    /** What a failed read becomes (the pipeline's: a broken connection marked, the job ended or retried). */
    private readonly failure: (error: unknown) => Promise<never> = (error) => {
      throw error;
    },
  ) {
    this.repositoryKey = `gitlab:${mr.target.baseUrl.replace(/\/+$/, '')}#${mr.projectId}`;
  }

  /**
   * The merge request's base commit (`diff_refs.base_sha`, where it left the target branch: fixed,
   * so the file can be cached by it), else the target branch itself while GitLab prepares the diff.
   */
  async configRef(): Promise<string> {
    const mergeRequest = await this.client.mergeRequest(this.mr.target, this.mr.projectId, this.mr.iid).catch(this.failure);
    return mergeRequest.diff_refs?.base_sha ?? mergeRequest.target_branch;
  }

  /** The project's code at a commit for the snapshot cache (`SnapshotCache.open`), read like the rest with this reader's token and failures. */
  snapshotSource(): GitLabSnapshotSource {
    return new GitLabSnapshotSource(this.client, this.mr, this.failure);
  }

  changeDiff(): Promise<string> {
    return this.client.mergeRequestDiff(this.mr.target, this.mr.projectId, this.mr.iid).catch(this.failure);
  }

  pushDiff(from: string, to: string): Promise<string | null> {
    return this.client.compareDiff(this.mr.target, this.mr.projectId, from, to).catch(this.failure);
  }

  /** GitLab refusing one file leaves `.ai-review.yml` at its defaults; a refused token breaks the connection instead. */
  async fileAt(path: string, ref: string): Promise<string | null> {
    try {
      return await this.client.fileContent(this.mr.target, this.mr.projectId, path, ref);
    } catch (error) {
      if (error instanceof GitLabApiError && !(error instanceof GitLabConnectionBrokenError) && error.status >= 400 && error.status < 500 && error.status !== 429) {
        throw new FileRefusedError(error.status, 'GitLab');
      }
      return this.failure(error);
    }
  }
}
