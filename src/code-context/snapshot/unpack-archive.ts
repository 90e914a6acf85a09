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
 * Files being written at once. Each write is a few round trips through libuv's pool (mkdir, open,
 * write, close): one at a time, a 2,000-file archive took 3 s at 40% of a core. At most this many
 * files' bytes (each at most `maxFileBytes`) are held while they wait for the disk.
 */
const WRITES_IN_FLIGHT = 16;

/**
 * Unpacks a gzipped tar into `folder`, one entry at a time (the archive is never whole in memory;
 * up to WRITES_IN_FLIGHT files are written side by side). Only regular files are written: symbolic
 * and hard links, devices and the like are skipped, as are paths that would leave the folder
 * (`../`, absolute) and files over the size limit. The top folder of the archive (`owner-repo-sha/`)
 * is dropped. Which entry gets a path is decided in archive order before anything is written, so the
 * writes' order does not matter.
 */
export async function unpackArchive(archive: ReadableStream<Uint8Array>, folder: string, limits: UnpackLimits): Promise<{ files: SnapshotFile[]; skipped: number }> {
  const written: Array<SnapshotFile | undefined> = [];
  let skipped = 0;
  let total = 0;
  const paths = new ClaimedPaths();
  const folders = new Map<string, Promise<unknown>>();
  const writing = new Set<Promise<void>>();
  let failure: { error: unknown } | undefined;
  const entries = extract();
  const input = Readable.fromWeb(archive);
  const feeding = pipeline(input, createGunzip({ chunkSize: 256 * 1024 }), entries);
  // A broken stream surfaces through the iteration below; this keeps it from being unhandled.
  feeding.catch(() => undefined);
  try {
    for await (const entry of entries) {
      if (failure) throw failure.error;
      const { header } = entry;
      const path = header.type === 'file' ? withinTopFolder(header.name) : undefined;
      const size = header.size ?? 0;
      if (path === undefined || size > limits.maxFileBytes || !paths.claim(path)) {
        if (header.type === 'file') skipped++;
        entry.resume();
        continue;
      }
      total += size;
      if (total > limits.maxBytes) {
        entry.resume();
        throw new ArchiveTooLargeError(`the archive unpacks to more than ${limits.maxBytes} bytes`);
      }
      // One write per file (each is at most `maxFileBytes`): streaming each entry to disk chunk by
      // chunk cost three times the CPU on a repository of many small files.
      const chunks: Buffer[] = [];
      for await (const chunk of entry) chunks.push(chunk as Buffer);
      const slot = written.push(undefined) - 1;
      const write = writeFile(join(folder, path), Buffer.concat(chunks), folders).then(
        (created) => {
          if (created) written[slot] = { path, size };
          else skipped++;
        },
        (error: unknown) => {
          failure ??= { error };
        },
      );
      writing.add(write);
      void write.finally(() => writing.delete(write));
      if (writing.size >= WRITES_IN_FLIGHT) await Promise.race(writing);
    }
    await feeding;
    await Promise.all(writing);
    if (failure) throw failure.error;
  } catch (error) {
    input.destroy();
    entries.destroy();
    // Nothing is left writing into a folder the caller is about to remove.
    await Promise.all(writing);
    throw error;
  }
  return { files: written.filter((file) => file !== undefined), skipped };
}

/**
 * The archive's paths so far, files and the folders above them: a second entry with a taken path,
 * one under a file's name (`a` then `a/b`) or one named as a folder already holding files (`a/b`
 * then `a`) is skipped, never merged; the first entry of a path wins.
 */
class ClaimedPaths {
  private readonly files = new Set<string>();
  private readonly folders = new Set<string>();

  claim(path: string): boolean {
    if (this.files.has(path) || this.folders.has(path)) return false;
    const above = ancestors(path);
    if (above.some((folder) => this.files.has(folder))) return false;
    this.files.add(path);
    for (const folder of above) this.folders.add(folder);
    return true;
  }
}

/** `a/b/c` → `a`, `a/b`. */
function ancestors(path: string): string[] {
  const found: string[] = [];
  for (let slash = path.indexOf('/'); slash !== -1; slash = path.indexOf('/', slash + 1)) found.push(path.slice(0, slash));
  return found;
}

/** `owner-repo-sha/src/a.py` → `src/a.py`; an absolute name or a `..` top folder is refused. */
function withinTopFolder(name: string): string | undefined {
  const slash = name.indexOf('/');
  if (slash <= 0 || safeRepositoryPath(name.slice(0, slash)) === undefined) return undefined;
  return safeRepositoryPath(name.slice(slash + 1));
}

/**
 * Writes a new file (`wx`: never through or over what is there); false when the path is taken on
 * disk all the same (a file system that folds case). Each folder is created once.
 */
async function writeFile(target: string, content: Buffer, folders: Map<string, Promise<unknown>>): Promise<boolean> {
  let file: FileHandle;
  try {
    const folder = dirname(target);
    let created = folders.get(folder);
    if (!created) {
      created = mkdir(folder, { recursive: true });
      folders.set(folder, created);
    }
    await created;
    file = await open(target, 'wx');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || code === 'ENOTDIR' || code === 'EISDIR') return false;
    throw error;
  }
  try {
    await file.writeFile(content);
  } finally {
    await file.close();
  }
  return true;
}
