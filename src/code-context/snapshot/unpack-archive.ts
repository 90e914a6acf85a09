import { closeSync, openSync, writeSync } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { extract } from 'tar-stream';
import { safeRepositoryPath } from './snapshot-paths.js';

export interface SnapshotFile {
  path: string;
  size: number;
  /** Where the file's bytes start in its snapshot's pack (a snapshot built from the archive). */
  offset?: number;
}

export interface UnpackLimits {
  /** The sum of the files kept; over it the unpacking stops (`ArchiveTooLargeError`). */
  maxBytes: number;
  /** A larger file is left out (data, bundles, a 5 MB minified line): the reviewer would not read it. */
  maxFileBytes: number;
}

export interface UnpackResult {
  files: SnapshotFile[];
  /** Regular files left out (over the size limit, outside the repository, a path taken). */
  skipped: number;
}

export class ArchiveTooLargeError extends Error {
  override name = 'ArchiveTooLargeError';
}

/**
 * Unpacks a gzipped tar into one file, `pack`: the regular files' bytes one after another, each
 * file's place returned with its path (the archive is never whole in memory). Symbolic and hard
 * links, devices and the like are skipped, as are paths that would leave the repository (`../`,
 * absolute) and files over the size limit. The top folder of the archive (`owner-repo-sha/`) is
 * dropped. The first entry of a path wins: a second entry with a taken path, one under a file's name
 * (`a` then `a/b`) or one named as a folder already holding files (`a/b` then `a`) is skipped.
 *
 * One file, not a tree: creating 2,000 files cost 0.7 ms of system time each on the benchmark
 * machine, a second and a half of the review's thread while the review it was prefetched for
 * prepared beside it; appending is a write per file. No path of the archive ever names a file on
 * disk, so none can lead outside the cache. Each file is appended with a synchronous write (at most
 * `maxFileBytes`, to the page cache).
 */
export async function unpackArchive(archive: ReadableStream<Uint8Array>, pack: string, limits: UnpackLimits): Promise<UnpackResult> {
  const files: SnapshotFile[] = [];
  let skipped = 0;
  let total = 0;
  const paths = new ClaimedPaths();
  const entries = extract();
  const input = Readable.fromWeb(archive);
  const feeding = pipeline(input, createGunzip({ chunkSize: 256 * 1024 }), entries);
  // A broken stream surfaces through the iteration below; this keeps it from being unhandled.
  feeding.catch(() => undefined);
  const fd = openSync(pack, 'wx');
  try {
    for await (const entry of entries) {
      const { header } = entry;
      const path = header.type === 'file' ? withinTopFolder(header.name) : undefined;
      const size = header.size ?? 0;
      if (path === undefined || size > limits.maxFileBytes || !paths.claim(path)) {
        if (header.type === 'file') skipped++;
        entry.resume();
        continue;
      }
      if (total + size > limits.maxBytes) {
        entry.resume();
        throw new ArchiveTooLargeError(`the archive unpacks to more than ${limits.maxBytes} bytes`);
      }
      const chunks: Buffer[] = [];
      for await (const chunk of entry) chunks.push(chunk as Buffer);
      const content = Buffer.concat(chunks);
      for (let written = 0; written < content.length; ) written += writeSync(fd, content, written);
      files.push({ path, size: content.length, offset: total });
      total += content.length;
    }
    await feeding;
  } catch (error) {
    input.destroy();
    entries.destroy();
    throw error;
  } finally {
    closeSync(fd);
  }
  return { files, skipped };
}

/** The archive's paths so far, files and the folders above them (see `unpackArchive`). */
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
