import { createHash } from 'node:crypto';
import { DEFAULT_MAX_FILE_BYTES } from '../../code-context/snapshot/snapshot-cache.js';
import type { SnapshotSource, SnapshotTree } from '../../code-context/snapshot/snapshot-source.js';
import type { BitbucketClient, BitbucketTarget } from './bitbucket-client.js';
import { BitbucketConnectionBrokenError } from './bitbucket-errors.js';

/**
 * Folder pages listed per snapshot. `/src` lists one folder a page (at most 100 entries), and every
 * page spends the hourly budget reviews and comments share (1,000 calls, facts §6); past this many
 * the listing is cut (`truncated`), breadth first, so the top of the tree is what is known.
 */
export const MAX_LISTED_PAGES = 40;

/**
 * A Bitbucket repository's code at one commit (decisions.md §16 Reading, §11), read with the
 * connection's credentials. API 2.0 has no archive and the website's refuses tokens (facts §2), so
 * there is no `archive`: the snapshot is always read file by file (`context.snapshot: 'files'`), its
 * listing from `/src`'s folder pages and each file from `/src/{commit}/{path}` when first needed.
 */
export class BitbucketSnapshotSource implements SnapshotSource {
  readonly host: string;
  readonly repository: string;
  /** The connection's token, hashed: the credentials every read of the repository uses. */
  readonly reader: string;

  constructor(
    private readonly client: BitbucketClient,
    private readonly target: BitbucketTarget,
    /** What a failed read becomes (the pipeline's: a broken connection marked, the job ended or retried). */
    private readonly failure: (error: unknown) => Promise<never> = (error) => {
      throw error;
    },
    private readonly maxFileBytes = DEFAULT_MAX_FILE_BYTES,
    private readonly maxPages = MAX_LISTED_PAGES,
  ) {
    this.host = new URL(client.apiUrl).host;
    this.repository = `${target.workspace}/${target.repoSlug}`;
    this.reader = createHash('sha256').update(target.auth.token).digest('hex').slice(0, 16);
  }

  /** A token Bitbucket refuses (401, 403: the connection is broken); a 404 may be one commit's, and is not remembered for the repository. */
  refuses(error: unknown): boolean {
    return error instanceof BitbucketConnectionBrokenError;
  }

  /** Folders breadth first, each followed through its pages, until the page budget runs out. */
  async listFiles(commit: string): Promise<SnapshotTree> {
    const files: SnapshotTree['files'] = [];
    const folders: Array<{ path: string; page?: string }> = [{ path: '' }];
    let pages = 0;
    while (folders.length > 0 && pages < this.maxPages) {
      const folder = folders.shift()!;
      const { entries, next } = await this.client.directory(this.target, commit, folder.path, folder.page).catch(this.failure);
      pages++;
      for (const entry of entries) {
        if (entry.type === 'commit_directory') folders.push({ path: entry.path });
        else if (entry.type === 'commit_file') files.push({ path: entry.path, size: entry.size ?? 0 });
      }
      if (next !== undefined) folders.unshift({ path: folder.path, page: next });
    }
    return { truncated: folders.length > 0, files };
  }

  async readFile(commit: string, path: string): Promise<string | null> {
    const text = await this.client.fileAt(this.target, commit, path).catch(this.failure);
    return text !== null && Buffer.byteLength(text) > this.maxFileBytes ? null : text;
  }
}
