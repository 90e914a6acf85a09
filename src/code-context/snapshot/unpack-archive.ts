import { mkdirSync, writeFileSync } from 'node:fs';
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
 * Only regular files are written: symbolic and hard links, devices and the like are skipped, as are
 * paths that would leave the folder (`../`, absolute) and files over the size limit. The top folder
 * of the archive (`owner-repo-sha/`) is dropped. The first entry of a path wins: a second entry with
 * a taken path, one under a file's name (`a` then `a/b`) or one named as a folder already holding
 * files (`a/b` then `a`) is skipped, never merged.
 *
 * Each file is written with synchronous calls, in archive order. A file is at most `maxFileBytes`
 * and goes to the page cache: the calls take tens of microseconds. Through the promise API, a file
 * was four round trips through libuv's pool and a FileHandle to collect: a 2,000-file archive kept
 * the review's thread busy for a second and a half (writes 0.9 s, the garbage collector 0.3 s), and
 * the review it was prefetched for started that much later.
 */
export async function unpackArchive(archive: ReadableStream<Uint8Array>, folder: string, limits: UnpackLimits): Promise<{ files: SnapshotFile[]; skipped: number }> {
  const files: SnapshotFile[] = [];
  let skipped = 0;
  let total = 0;
  const folders = new Set<string>();
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
      // One write per file: streaming each entry to disk chunk by chunk cost three times the CPU on
      // a repository of many small files.
      const chunks: Buffer[] = [];
      for await (const chunk of entry) chunks.push(chunk as Buffer);
      if (writeNewFile(join(folder, path), Buffer.concat(chunks), folders)) files.push({ path, size });
      else skipped++;
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
 * Writes a new file (`wx`: never through or over what is there); false when the path is taken: by
 * an earlier entry's file or folder, under an earlier file's name, or on a file system that folds
 * case. Each folder is created once.
 */
function writeNewFile(target: string, content: Buffer, folders: Set<string>): boolean {
  try {
    const parent = dirname(target);
    if (!folders.has(parent)) {
      mkdirSync(parent, { recursive: true });
      folders.add(parent);
    }
    writeFileSync(target, content, { flag: 'wx' });
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || code === 'ENOTDIR' || code === 'EISDIR') return false;
    throw error;
  }
}
