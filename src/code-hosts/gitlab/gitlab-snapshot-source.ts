import { createHash } from 'node:crypto';
import type { GitLabClient } from './gitlab-client.js';
import { GitLabApiError, GitLabConnectionBrokenError } from './gitlab-errors.js';
import { DEFAULT_MAX_FILE_BYTES } from '../../code-context/snapshot/snapshot-cache.js';
import type { SnapshotSource, SnapshotTree } from '../../code-context/snapshot/snapshot-source.js';
import type { GitLabMergeRequestRef } from './gitlab-publisher.js';

/**
 * A GitLab project's code at one commit (decisions.md §12 Reading), read with the connection's
 * token: the archive API's tarball, the paged tree API's listing, the raw files API.
 *
 * GitLab's tree API gives no sizes, so every file is listed with size 0: the snapshot cache then
 * always tries the archive, and `REVIEW_SNAPSHOT_MAX_BYTES` is applied while unpacking it (the
 * download stops at the cap and the snapshot falls back to reading files one by one). A file read
 * one by one over `maxFileBytes` reads as absent, as GitHub's listed sizes make it.
 */
export class GitLabSnapshotSource implements SnapshotSource {
  /** The instance's host, its sub-path folded in, so two instances on one host never share a folder. */
  readonly host: string;
  /** GitLab's project paths may nest groups: the numeric id names the folder (`projects/<id>`). */
  readonly repository: string;
  /** The connection's token, hashed: the credentials every read of the project uses. */
  readonly reader: string;

  constructor(
    private readonly client: GitLabClient,
    private readonly mr: Pick<GitLabMergeRequestRef, 'target' | 'projectId'>,
    /** What a failed read becomes (the pipeline's: a broken connection marked, the job ended or retried). */
    private readonly failure: (error: unknown) => Promise<never> = (error) => {
      throw error;
    },
    private readonly maxFileBytes = DEFAULT_MAX_FILE_BYTES,
  ) {
    const base = new URL(mr.target.baseUrl);
    const subPath = base.pathname.replace(/^\/+|\/+$/g, '').replace(/[^\w.-]+/g, '_');
    this.host = subPath === '' ? base.host : `${base.host.replace(':', '_')}_${subPath}`;
    this.repository = `projects/${mr.projectId}`;
    this.reader = createHash('sha256').update(mr.target.token).digest('hex').slice(0, 16);
  }

  /** A token GitLab refuses (401, 403: the connection is broken); a 404 may be one commit's, and is not remembered for the project. */
  refuses(error: unknown): boolean {
    return error instanceof GitLabConnectionBrokenError;
  }

  async archive(commit: string): Promise<ReadableStream<Uint8Array>> {
    const archive = await this.client.archive(this.mr.target, this.mr.projectId, commit).catch(this.failure);
    if (archive === null) return this.failure(new GitLabApiError(404, `GitLab has no commit ${commit}`));
    return archive;
  }

  async listFiles(commit: string): Promise<SnapshotTree> {
    const tree = await this.client.treePaths(this.mr.target, this.mr.projectId, commit).catch(this.failure);
    return { truncated: tree.truncated, files: tree.paths.map((path) => ({ path, size: 0 })) };
  }

  async readFile(commit: string, path: string): Promise<string | null> {
    const text = await this.client.fileContent(this.mr.target, this.mr.projectId, path, commit).catch(this.failure);
    return text !== null && Buffer.byteLength(text) > this.maxFileBytes ? null : text;
  }
}
