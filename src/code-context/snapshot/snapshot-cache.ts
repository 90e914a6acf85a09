import { randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { codeWorkers } from '../code-workers.js';
import { outlineFile } from '../outline-file.js';
import { resolveImport } from '../resolve-imports.js';
import { RepositorySnapshot, writeAtomically, type SnapshotMode } from './repository-snapshot.js';
import type { SnapshotSource } from './snapshot-source.js';
import { ArchiveTooLargeError, type SnapshotFile } from './unpack-archive.js';

export interface SnapshotCacheOptions {
  /** The cache folder (`REVIEW_SNAPSHOT_DIR`, default `DATA_DIR/snapshots`). */
  root: string;
  /** `REVIEW_SNAPSHOT_MAX_BYTES`: over this unpacked size, files are read one by one. */
  maxBytes: number;
  /** A file larger than this is not kept (the reviewer would not read it). */
  maxFileBytes?: number;
  /** A snapshot unused this long is deleted. */
  idleMs?: number;
  /** The cache is held under this many bytes by deleting the least recently used snapshots. */
  maxCacheBytes?: number;
}

interface SnapshotMeta {
  mode: SnapshotMode;
  commit: string;
  repository: string;
  bytes: number;
  files: SnapshotFile[];
}

export const DEFAULT_MAX_FILE_BYTES = 1024 * 1024;
const DAY_MS = 24 * 60 * 60 * 1000;
const COMMIT = /^[0-9a-f]{7,64}$/i;
const REPOSITORY = /^[\w.-]+\/[\w.-]+$/;
const HOST = /^[\w.-]+(:\d+)?$/;
/** An unfinished build left by a crashed worker is removed after this long. */
const STALE_BUILD_MS = 60 * 60 * 1000;
const SWEEP_EVERY_MS = 60_000;
/**
 * A snapshot that could not be built (a network failure, a missing commit) is not asked for again
 * for this long: the review that prefetched it and the review step that needs it would otherwise
 * each pay the failure, and the review goes on with the diff alone anyway. A host refusing a reader
 * the repository itself (`SnapshotSource.refuses`) is not asked for any of its commits that long.
 */
const FAILED_BUILD_MEMORY_MS = 60_000;
const MAX_REMEMBERED_FAILURES = 1_000;
/** A snapshot built from the archive keeps its files' bytes in this one file (see `unpackArchive`). */
const PACK = 'tree.pack';

/**
 * Repository snapshots on disk, one folder per host, repository and commit:
 * `<root>/<host>/<owner>/<name>/<commit>/{meta.json,tree.pack}` (from the archive) or
 * `{meta.json,tree/…}` (file by file). A snapshot is built in
 * `<root>/.tmp/` and renamed into place when complete, so workers on several machines sharing the
 * folder (or each with its own) may build the same one at once: the first rename wins, the others
 * drop theirs. Eviction: a snapshot unused for 24 hours is deleted, and the least recently used go
 * while the cache holds more than four times `maxBytes`; deletion renames into `<root>/.trash/`
 * first, so a reader never sees a half-deleted snapshot.
 */
export class SnapshotCache {
  private readonly building = new Map<string, Promise<RepositorySnapshot>>();
  /** Builds that failed, by folder (one commit). */
  private readonly failed = new Map<string, RememberedFailure>();
  /** Repositories whose host refused a reader their code, by host, repository and reader. */
  private readonly refused = new Map<string, RememberedFailure>();
  private readonly maxFileBytes: number;
  private lastSweep = 0;

  constructor(private readonly options: SnapshotCacheOptions) {
    this.maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  }

  /**
   * The snapshot of `commit`, built on first use. When the repository is over the size limit, only
   * `changedPaths` and the repository files they import are read (`files` mode; others on demand).
   */
  open(source: SnapshotSource, commit: string, changedPaths: readonly string[]): Promise<RepositorySnapshot> {
    if (!COMMIT.test(commit) || !REPOSITORY.test(source.repository) || !HOST.test(source.host)) {
      return Promise.reject(new Error(`no snapshot for ${source.repository}@${commit}: not a repository name and commit`));
    }
    const folder = join(this.options.root, source.host.replace(':', '_'), source.repository, commit.toLowerCase());
    const refusedKey = `${source.host}/${source.repository}#${source.reader}`;
    const failure = [this.failed.get(folder), this.refused.get(refusedKey)].find((entry) => entry !== undefined && entry.until > Date.now());
    if (failure !== undefined) return Promise.reject(failure.error);
    let pending = this.building.get(folder);
    if (!pending) {
      pending = this.openOrBuild(source, commit, folder, changedPaths)
        .catch((error: unknown) => {
          // A host refusing these credentials the repository refuses its other commits too.
          if (source.refuses(error)) remember(this.refused, refusedKey, error);
          else remember(this.failed, folder, error);
          throw error;
        })
        .finally(() => this.building.delete(folder));
      this.building.set(folder, pending);
    }
    return pending;
  }

  private async openOrBuild(source: SnapshotSource, commit: string, folder: string, changedPaths: readonly string[]): Promise<RepositorySnapshot> {
    const existing = await this.load(source, folder);
    if (existing?.mode === 'tarball') return existing;
    const snapshot = existing ?? (await this.build(source, commit, folder));
    if (snapshot.mode === 'files') await this.readChangedAndImported(snapshot, changedPaths);
    void this.sweep().catch(() => undefined);
    return snapshot;
  }

  private async load(source: SnapshotSource, folder: string): Promise<RepositorySnapshot | undefined> {
    let meta: SnapshotMeta;
    try {
      meta = JSON.parse(await readFile(join(folder, 'meta.json'), 'utf8')) as SnapshotMeta;
    } catch {
      return undefined;
    }
    const now = new Date();
    await utimes(join(folder, 'meta.json'), now, now).catch(() => undefined);
    return this.snapshotOf(meta, folder, source);
  }

  private snapshotOf(meta: SnapshotMeta, folder: string, source: SnapshotSource): RepositorySnapshot {
    const fetchMissing = meta.mode === 'files' ? { source, maxFileBytes: this.maxFileBytes } : undefined;
    return new RepositorySnapshot(meta.mode, meta.commit, join(folder, 'tree'), meta.files, fetchMissing, meta.mode === 'tarball' ? join(folder, PACK) : undefined);
  }

  private async build(source: SnapshotSource, commit: string, folder: string): Promise<RepositorySnapshot> {
    // The listing's sizes tell whether the archive fits before it is downloaded.
    const listing = await source.listFiles(commit);
    const listed = listing.files.reduce((sum, file) => sum + Math.min(file.size, this.maxFileBytes), 0);
    const temporary = join(this.options.root, '.tmp', randomUUID());
    // `tree/` is created by the first file read one by one (`files` mode); from the archive, only the pack.
    await mkdir(temporary, { recursive: true });
    try {
      let meta: SnapshotMeta | undefined;
      if (source.archive !== undefined && !listing.truncated && listed <= this.options.maxBytes) {
        try {
          const { files } = await codeWorkers.unpack(await source.archive(commit), join(temporary, PACK), { maxBytes: this.options.maxBytes, maxFileBytes: this.maxFileBytes });
          meta = { mode: 'tarball', commit, repository: source.repository, bytes: files.reduce((sum, file) => sum + file.size, 0), files };
        } catch (error) {
          if (!(error instanceof ArchiveTooLargeError)) throw error;
          await rm(join(temporary, PACK), { force: true });
        }
      }
      meta ??= { mode: 'files', commit, repository: source.repository, bytes: 0, files: listing.files.filter((file) => file.size <= this.maxFileBytes) };
      await writeAtomically(join(temporary, 'meta.json'), JSON.stringify(meta));
      await mkdir(join(folder, '..'), { recursive: true });
      try {
        await rename(temporary, folder);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw error;
        // Another worker finished first: theirs is the same commit.
        return (await this.load(source, folder)) ?? this.snapshotOf(meta, folder, source);
      }
      return this.snapshotOf(meta, folder, source);
    } finally {
      await rm(temporary, { recursive: true, force: true });
    }
  }

  /** `files` mode: the changed files, then the repository files they import, each read once. */
  private async readChangedAndImported(snapshot: RepositorySnapshot, changedPaths: readonly string[]): Promise<void> {
    for (const path of changedPaths) {
      const text = await snapshot.readFile(path);
      if (text === null) continue;
      const outline = await outlineFile(path, text);
      if (!outline.ok) continue;
      const imported = new Set(outline.outline.imports.flatMap((item) => resolveImport(path, item, outline.outline.language, snapshot.index)));
      for (const file of imported) await snapshot.readFile(file);
    }
  }

  /** Deletes idle snapshots, then the least recently used beyond the cache's size; at most once a minute. */
  async sweep(now = Date.now()): Promise<void> {
    if (now - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = now;
    const idleMs = this.options.idleMs ?? DAY_MS;
    const maxCacheBytes = this.options.maxCacheBytes ?? this.options.maxBytes * 4;
    const snapshots: Array<{ folder: string; usedAt: number; bytes: number }> = [];
    for (const folder of await foldersAtDepth(this.options.root, 4)) {
      const meta = join(folder, 'meta.json');
      const used = await stat(meta).catch(() => undefined);
      if (!used) continue;
      const bytes = (JSON.parse(await readFile(meta, 'utf8').catch(() => '{}')) as Partial<SnapshotMeta>).bytes ?? 0;
      snapshots.push({ folder, usedAt: used.mtimeMs, bytes });
    }
    snapshots.sort((a, b) => b.usedAt - a.usedAt);
    let kept = 0;
    for (const snapshot of snapshots) {
      kept += snapshot.bytes;
      if (now - snapshot.usedAt > idleMs || kept > maxCacheBytes) await this.remove(snapshot.folder);
    }
    for (const folder of await foldersAtDepth(join(this.options.root, '.tmp'), 1)) {
      const built = await stat(folder).catch(() => undefined);
      if (built && now - built.mtimeMs > STALE_BUILD_MS) await rm(folder, { recursive: true, force: true });
    }
  }

  private async remove(folder: string): Promise<void> {
    const trash = join(this.options.root, '.trash', randomUUID());
    await mkdir(join(this.options.root, '.trash'), { recursive: true });
    await rename(folder, trash).catch(() => undefined);
    await rm(trash, { recursive: true, force: true });
  }
}

interface RememberedFailure {
  error: Error;
  until: number;
}

/** Remembers a failure for `FAILED_BUILD_MEMORY_MS`; the map stays small whatever the hosts refuse. */
function remember(failures: Map<string, RememberedFailure>, key: string, error: unknown): void {
  failures.delete(key);
  // Oldest first (insertion order).
  for (const [oldest, entry] of failures) {
    if (failures.size < MAX_REMEMBERED_FAILURES && entry.until > Date.now()) break;
    failures.delete(oldest);
  }
  failures.set(key, { error: error instanceof Error ? error : new Error(String(error)), until: Date.now() + FAILED_BUILD_MEMORY_MS });
}

/** The folders `depth` levels under `root` (hidden ones skipped). */
async function foldersAtDepth(root: string, depth: number): Promise<string[]> {
  let level = [root];
  for (let step = 0; step < depth; step++) {
    const next: string[] = [];
    for (const folder of level) {
      const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
      for (const entry of entries) if (entry.isDirectory() && (depth === 1 || !entry.name.startsWith('.'))) next.push(join(folder, entry.name));
    }
    level = next;
  }
  return level;
}
