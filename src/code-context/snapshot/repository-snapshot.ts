import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { PathIndex } from '../resolve-imports.js';
import { safeRepositoryPath } from './snapshot-paths.js';
import type { SnapshotSource } from './snapshot-source.js';
import type { SnapshotFile } from './unpack-archive.js';

/** `tarball`: every file of the commit is on disk; `files`: only those read so far, the rest on demand. */
export type SnapshotMode = 'tarball' | 'files';

/**
 * The code of one commit, in a folder of the snapshot cache. Reads never leave the folder (paths go
 * through `safeRepositoryPath`), and a file the snapshot does not hold reads as null.
 */
export class RepositorySnapshot {
  readonly index: PathIndex;
  private readonly sizes: Map<string, number>;

  constructor(
    readonly mode: SnapshotMode,
    readonly commit: string,
    /** The folder holding the files (`…/<commit>/tree`). */
    private readonly folder: string,
    readonly files: readonly SnapshotFile[],
    private readonly fetchMissing: { source: SnapshotSource; maxFileBytes: number } | undefined,
  ) {
    this.index = new PathIndex(files.map((file) => file.path));
    this.sizes = new Map(files.map((file) => [file.path, file.size]));
  }

  /** A file's text at the commit; null when absent, unsafe, too large, or when it cannot be read. */
  async readFile(path: string): Promise<string | null> {
    const safe = safeRepositoryPath(path);
    if (safe === undefined || !this.sizes.has(safe)) return null;
    try {
      return await readFile(join(this.folder, safe), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || !this.fetchMissing) return null;
    }
    const { source, maxFileBytes } = this.fetchMissing;
    if ((this.sizes.get(safe) ?? 0) > maxFileBytes) return null;
    const text = await source.readFile(this.commit, safe);
    if (text !== null) await writeAtomically(join(this.folder, safe), text);
    return text;
  }
}

/** Writes through a temporary name and a rename, so a reader on another worker never sees half a file. */
export async function writeAtomically(target: string, content: string): Promise<void> {
  await mkdir(dirname(target), { recursive: true });
  const temporary = `${target}.${randomUUID()}.partial`;
  await writeFile(temporary, content);
  await rename(temporary, target);
}
