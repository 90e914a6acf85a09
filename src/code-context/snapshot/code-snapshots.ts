import { type CodeIndex, CodeIndexCache } from '../code-index.js';
import { codeWorkers } from '../code-workers.js';
import type { SnapshotCache } from './snapshot-cache.js';
import type { SnapshotSource } from './snapshot-source.js';

/**
 * The code of a reviewed commit, ready to read: its snapshot (on disk, shared by the workers of
 * the folder) and its outlines and symbol index (in this process, shared by the chunks and the
 * reviews of that commit). The code host is whatever `SnapshotSource` the caller gives.
 */
export class CodeSnapshots {
  private readonly indexes = new CodeIndexCache();

  constructor(private readonly cache: SnapshotCache) {}

  async open(source: SnapshotSource, commit: string, changedPaths: readonly string[]): Promise<CodeIndex> {
    // The code workers start while the snapshot downloads (the review's prefetch opens it first).
    codeWorkers.warm();
    const snapshot = await this.cache.open(source, commit, changedPaths);
    return this.indexes.for(`${source.host}/${source.repository}@${commit.toLowerCase()}`, snapshot);
  }
}
