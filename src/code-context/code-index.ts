import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { languageForPath } from './language-specs.js';
import { namesOf } from './find-symbols.js';
import { splitLines } from './outline-file.js';
import { codeWorkers } from './code-workers.js';
import type { CodeSymbol, OutlineResult } from './outline-types.js';
import type { RepositorySnapshot } from './snapshot/repository-snapshot.js';

/** A definition found in the repository. */
export interface IndexedSymbol {
  path: string;
  symbol: CodeSymbol;
}

/** A line of the repository that calls a name (on `receiver`, for a method call). */
export interface IndexedCall {
  path: string;
  line: number;
  receiver?: string;
}

export interface SymbolIndex {
  definitions: Map<string, IndexedSymbol[]>;
  calls: Map<string, IndexedCall[]>;
  /** False when the limits stopped the build: a name not found may still exist. */
  complete: boolean;
}

export interface CodeIndexLimits {
  /** Files the symbol index outlines at most (a huge monorepo is indexed in part). */
  maxIndexedFiles: number;
  /** Time the symbol index may take to build, once per snapshot. */
  indexTimeMs: number;
}

export const DEFAULT_CODE_INDEX_LIMITS: CodeIndexLimits = { maxIndexedFiles: 5_000, indexTimeMs: 10_000 };
/** Text kept in memory per snapshot for `lines` (least recently used out first). */
const MAX_CACHED_CHARS = 8 * 1024 * 1024;
/** The event loop gets a turn after this many files, so a worker's other jobs and heartbeats go on. */
const YIELD_EVERY = 16;

/**
 * What the reviewer knows of one snapshot's code: each file's outline (parsed once, kept for every
 * chunk and every review of the commit), and the repository's symbol index (every definition and
 * call site by name), built on first use. The index is built only for a whole snapshot (`tarball`):
 * in `files` mode it would read the repository file by file from the code host.
 */
export class CodeIndex {
  private readonly outlines = new Map<string, Promise<OutlineResult | null>>();
  private symbols: Promise<SymbolIndex> | undefined;
  private readonly texts = new Map<string, { lines: readonly string[]; chars: number }>();
  private cachedChars = 0;

  constructor(
    readonly snapshot: RepositorySnapshot,
    private readonly limits: CodeIndexLimits = DEFAULT_CODE_INDEX_LIMITS,
  ) {}

  /** The file's text at the commit (null when the snapshot does not hold it). */
  readFile(path: string): Promise<string | null> {
    return this.snapshot.readFile(path);
  }

  /**
   * The file's lines, from a small cache: a chunk's definitions often sit in the same few files,
   * and reading them again for each cost more than finding them.
   */
  async lines(path: string): Promise<readonly string[] | null> {
    const cached = this.texts.get(path);
    if (cached) {
      this.texts.delete(path);
      this.texts.set(path, cached);
      return cached.lines;
    }
    const text = await this.snapshot.readFile(path);
    return text === null ? null : this.keepLines(path, text);
  }

  /**
   * A changed file's outline and lines, for its scopes. A packed file is read here while a worker
   * reads and outlines it; a file read one by one (`files` mode) is read once, its lines kept from
   * the outline's read.
   */
  async outlineAndLines(path: string): Promise<{ outline: OutlineResult | null; lines: readonly string[] | null }> {
    const outlined = this.outline(path, { keepLines: true });
    if (!this.snapshot.packedFile(path)) await outlined;
    const lines = await this.lines(path);
    return { outline: await outlined, lines };
  }

  /**
   * The file's outline, or null when the snapshot does not hold it; a failed outline says why. A
   * packed file is read by the worker that outlines it. `keepLines` (`outlineAndLines`): a file read
   * here keeps its lines from this read.
   */
  outline(path: string, { keepLines = false } = {}): Promise<OutlineResult | null> {
    let outline = this.outlines.get(path);
    if (!outline) {
      const packed = this.snapshot.packedFile(path);
      outline = packed
        ? codeWorkers.outline(path, packed)
        : this.snapshot.readFile(path).then((text) => {
            if (text === null) return null;
            if (keepLines && !this.texts.has(path)) this.keepLines(path, text);
            return codeWorkers.outline(path, text);
          });
      this.outlines.set(path, outline);
    }
    return outline;
  }

  private keepLines(path: string, text: string): readonly string[] {
    const lines = splitLines(text);
    // Two reads of one file side by side: the later replaces the earlier, counted once.
    this.cachedChars -= this.texts.get(path)?.chars ?? 0;
    this.texts.delete(path);
    this.texts.set(path, { lines, chars: text.length });
    this.cachedChars += text.length;
    for (const [oldest, entry] of this.texts) {
      if (this.cachedChars <= MAX_CACHED_CHARS || this.texts.size <= 1) break;
      this.texts.delete(oldest);
      this.cachedChars -= entry.chars;
    }
    return lines;
  }

  /** Every definition and call of the repository by name; empty in `files` mode. */
  symbolIndex(): Promise<SymbolIndex> {
    this.symbols ??= this.buildSymbolIndex();
    return this.symbols;
  }

  private async buildSymbolIndex(): Promise<SymbolIndex> {
    const index: SymbolIndex = { definitions: new Map(), calls: new Map(), complete: true };
    if (this.snapshot.mode !== 'tarball') return { ...index, complete: false };
    const deadline = performance.now() + this.limits.indexTimeMs;
    const parsed = this.snapshot.files.filter((file) => languageForPath(file.path) !== undefined);
    if (parsed.length > this.limits.maxIndexedFiles) index.complete = false;
    const indexed = parsed.slice(0, this.limits.maxIndexedFiles);
    for (let start = 0; start < indexed.length; start += YIELD_EVERY) {
      if (performance.now() > deadline) {
        index.complete = false;
        break;
      }
      await yieldToLoop();
      // A batch's files are read side by side: one at a time, each parse waited for its read's
      // round trip through libuv's pool (on a busy machine, as long as the parse itself).
      const batch = indexed.slice(start, start + YIELD_EVERY);
      const results = await Promise.all(batch.map((file) => this.outline(file.path)));
      batch.forEach((file, at) => {
        const result = results[at];
        if (!result?.ok) return;
        for (const symbol of result.outline.symbols) for (const name of namesOf(symbol)) if (name) push(index.definitions, name, { path: file.path, symbol });
        for (const reference of result.outline.references) {
          if (reference.kind !== 'call') continue;
          push(index.calls, reference.name, reference.receiver === undefined ? { path: file.path, line: reference.line } : { path: file.path, line: reference.line, receiver: reference.receiver });
        }
      });
    }
    return index;
  }
}

function push<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** Indexes of the snapshots used lately, so the chunks and reviews of one commit parse its files once. */
export class CodeIndexCache {
  private readonly indexes = new Map<string, CodeIndex>();

  constructor(
    private readonly size = 4,
    private readonly limits: CodeIndexLimits = DEFAULT_CODE_INDEX_LIMITS,
  ) {}

  for(key: string, snapshot: RepositorySnapshot): CodeIndex {
    let index = this.indexes.get(key);
    if (index && index.snapshot.mode === snapshot.mode) {
      // Most recently used last (a Map keeps insertion order).
      this.indexes.delete(key);
    } else {
      index = new CodeIndex(snapshot, this.limits);
    }
    this.indexes.set(key, index);
    while (this.indexes.size > this.size) this.indexes.delete(this.indexes.keys().next().value!);
    return index;
  }
}
