import { randomUUID } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { PathIndex } from '../resolve-imports.js';
import { safeRepositoryPath } from './snapshot-paths.js';
import type { SnapshotSource } from './snapshot-source.js';
import type { SnapshotFile } from './unpack-archive.js';

/** `tarball`: every file of the commit is on disk (in its pack); `files`: only those read so far, the rest on demand. */
export type SnapshotMode = 'tarball' | 'files';

/**
 * The code of one commit, in a folder of the snapshot cache: built from the archive, one pack of the
 * files' bytes (`…/<commit>/tree.pack`, each file's place in `files`); read file by file, a tree
 * (`…/<commit>/tree/…`). Reads never leave the folder (paths go through `safeRepositoryPath` and
 * must be listed), and a file the snapshot does not hold reads as null.
 */
export class RepositorySnapshot {
  readonly index: PathIndex;
  private readonly listed: Map<string, SnapshotFile>;

  constructor(
    readonly mode: SnapshotMode,
    readonly commit: string,
    /** The folder holding the files read one by one (`…/<commit>/tree`). */
    private readonly folder: string,
    readonly files: readonly SnapshotFile[],
    private readonly fetchMissing: { source: SnapshotSource; maxFileBytes: number } | undefined,
    /** The pack of a snapshot built from the archive (its files carry their offsets). */
    private readonly pack?: string,
  ) {
    this.index = new PathIndex(files.map((file) => file.path));
    this.listed = new Map(files.map((file) => [file.path, file]));
  }

  /** Where a file's bytes are in the pack (a snapshot built from the archive), for a reader in another thread. */
  packedFile(path: string): PackedFile | undefined {
    const file = this.fileAt(path);
    return file && this.placeOf(file);
  }

  /** A file's text at the commit; null when absent, unsafe, too large, or when it cannot be read. */
  async readFile(path: string): Promise<string | null> {
    const file = this.fileAt(path);
    if (file === undefined) return null;
    const packed = this.placeOf(file);
    if (packed !== undefined) return readPacked(packed);
    const safe = file.path;
    try {
      return await readFile(join(this.folder, safe), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || !this.fetchMissing) return null;
    }
    const { source, maxFileBytes } = this.fetchMissing;
    if (file.size > maxFileBytes) return null;
    const text = await source.readFile(this.commit, safe);
    if (text !== null) await writeAtomically(join(this.folder, safe), text);
    return text;
  }

  /** A listed file by a path that stays inside the repository. */
  private fileAt(path: string): SnapshotFile | undefined {
    const safe = safeRepositoryPath(path);
    return safe === undefined ? undefined : this.listed.get(safe);
  }

  private placeOf(file: SnapshotFile): PackedFile | undefined {
    return this.pack !== undefined && file.offset !== undefined ? { pack: this.pack, offset: file.offset, size: file.size } : undefined;
  }
}

/** A file's place in its snapshot's pack. */
export interface PackedFile {
  pack: string;
  offset: number;
  size: number;
}

/**
 * A packed file's text; null when it cannot be read (the snapshot was evicted meanwhile). Synchronous:
 * a file is at most the cache's `maxFileBytes` (1 MiB), read from a pack written moments ago (the
 * page cache), and the three round trips of `fs/promises` through libuv's pool (open, read, close)
 * cost eight times the CPU: 0.2 s of the review's thread for a 2,000-file pull request's reads.
 */
export function readPacked({ pack, offset, size }: PackedFile): string | null {
  let fd: number | undefined;
  try {
    fd = openSync(pack, 'r');
    const bytes = Buffer.allocUnsafe(size);
    const read = readSync(fd, bytes, 0, size, offset);
    return bytes.toString('utf8', 0, read);
  } catch {
    return null;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Writes through a temporary name and a rename, so a reader on another worker never sees half a file. */
export async function writeAtomically(target: string, content: string): Promise<void> {
  await mkdir(dirname(target), { recursive: true });
  const temporary = `${target}.${randomUUID()}.partial`;
  await writeFile(temporary, content);
  await rename(temporary, target);
}
