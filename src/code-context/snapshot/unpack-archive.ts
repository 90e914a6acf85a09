import { mkdir, open, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { extract } from 'tar-stream';
import { safeRepositoryPath } from './snapshot-paths.js';

export interface SnapshotFile {
  path: string;
  size: number;
}

export interface UnpackLimits {
  /** The sum of the files written; over it the unpacking stops (`ArchiveTooLargeError`). */
  maxBytes: number;
  /** A larger file is left out (data, bundles, a 5 MB minified line): the reviewer would not read it. */
  maxFileBytes: number;
}

export class ArchiveTooLargeError extends Error {
  override name = 'ArchiveTooLargeError';
}

/**
 * Unpacks a gzipped tar into `folder`, one entry at a time (the archive is never whole in memory).
 * Only regular files are written: symbolic and hard links, devices and the like are skipped, as
 * are paths that would leave the folder (`../`, absolute) and files over the size limit. The top
 * folder of the archive (`owner-repo-sha/`) is dropped.
 */
export async function unpackArchive(archive: ReadableStream<Uint8Array>, folder: string, limits: UnpackLimits): Promise<{ files: SnapshotFile[]; skipped: number }> {
  const files: SnapshotFile[] = [];
  let skipped = 0;
  let total = 0;
  const createdFolders = new Set<string>();
  const entries = extract();
  const input = Readable.fromWeb(archive);
  const feeding = pipeline(input, createGunzip({ chunkSize: 256 * 1024 }), entries);
  // A broken stream surfaces through the iteration below; this keeps it from being unhandled.
  feeding.catch(() => undefined);
  try {
    for await (const entry of entries) {
      const { header } = entry;
      const path = header.type === 'file' ? withinTopFolder(header.name) : undefined;
      const size = header.size ?? 0;
      if (path === undefined || size > limits.maxFileBytes) {
        if (header.type === 'file') skipped++;
        entry.resume();
        continue;
      }
      total += size;
      if (total > limits.maxBytes) {
        entry.resume();
        throw new ArchiveTooLargeError(`the archive unpacks to more than ${limits.maxBytes} bytes`);
      }
      const file = await createFile(join(folder, path), createdFolders);
      if (!file) {
        skipped++;
        entry.resume();
        continue;
      }
      // One write per file (each is at most `maxFileBytes`): streaming each entry to disk chunk by
      // chunk cost three times the CPU on a repository of many small files.
      const chunks: Buffer[] = [];
      for await (const chunk of entry) chunks.push(chunk as Buffer);
      try {
        await file.writeFile(Buffer.concat(chunks));
      } finally {
        await file.close();
      }
      files.push({ path, size });
    }
    await feeding;
  } catch (error) {
    input.destroy();
    entries.destroy();
    throw error;
  }
  return { files, skipped };
}

/** `owner-repo-sha/src/a.py` → `src/a.py`; an absolute name or a `..` top folder is refused. */
function withinTopFolder(name: string): string | undefined {
  const slash = name.indexOf('/');
  if (slash <= 0 || safeRepositoryPath(name.slice(0, slash)) === undefined) return undefined;
  return safeRepositoryPath(name.slice(slash + 1));
}

/**
 * Opens a new file for writing; undefined when the path is taken: a second entry with the same
 * path, or one under a file's name (`a` then `a/b`), is skipped, never merged.
 */
async function createFile(target: string, createdFolders: Set<string>): Promise<FileHandle | undefined> {
  try {
    const folder = dirname(target);
    if (!createdFolders.has(folder)) {
      await mkdir(folder, { recursive: true });
      createdFolders.add(folder);
    }
    return await open(target, 'wx');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || code === 'ENOTDIR' || code === 'EISDIR') return undefined;
    throw error;
  }
}
