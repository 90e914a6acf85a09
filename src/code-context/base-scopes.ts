import type { ContextBlock } from './context-block.js';
import { outlineFile, splitLines } from './outline-file.js';
import type { OutlineResult } from './outline-types.js';
import { scopeBlocks } from './scope-blocks.js';
import type { SnapshotSource } from './snapshot/snapshot-source.js';

/** Files read at the base commit per review at most: each is one call to the code host. */
const MAX_BASE_FILES = 20;

interface BaseFile {
  lines: readonly string[];
  outline: OutlineResult;
}

/**
 * Enclosing scopes at the base commit for hunks that only remove lines (decisions.md §11): a removed
 * function, or lines removed from one, is shown as it was. Only the files holding such hunks are
 * read, one by one through the code host's single-file read (no second archive), each once per
 * review. A file whose base lines do not match the removed lines (the diff's base is a merge base
 * that is not `commit`) gives nothing rather than a wrong scope; so does a file without a grammar.
 */
export class BaseScopes {
  private readonly files = new Map<string, Promise<BaseFile | null>>();

  constructor(
    private readonly source: SnapshotSource,
    readonly commit: string,
  ) {}

  /**
   * The base's scopes of the removed lines, but for a scope the head's blocks already show by the
   * same name in the same file (lines removed inside a function that is still there: the head shows
   * it as it is now and the diff shows what went). What is left is mostly what the change removed
   * whole, a function or a method, which the head cannot show.
   */
  async blocks(removed: ReadonlyArray<{ path: string; lines: ReadonlyMap<number, string> }>, atHead: readonly ContextBlock[]): Promise<ContextBlock[]> {
    const shown = new Set(atHead.filter((block) => block.kind === 'scope').map((block) => `${block.path}\n${block.label}`));
    const blocks: ContextBlock[] = [];
    for (const { path, lines: removedLines } of removed) {
      const file = await this.file(path);
      if (!file?.outline.ok) continue;
      const matches = [...removedLines].every(([line, text]) => withoutCarriageReturn(file.lines[line - 1]) === withoutCarriageReturn(text));
      if (!matches) continue;
      // A removed blank line sits between scopes: it would widen to the whole class or module.
      const changed = [...removedLines].filter(([, text]) => text.trim() !== '').map(([line]) => line).sort((a, b) => a - b);
      for (const block of scopeBlocks(path, file.lines, file.outline.outline, changed)) {
        if (shown.has(`${path}\n${block.label}`)) continue;
        blocks.push({ ...block, label: `${block.label}, at the base commit ${this.commit.slice(0, 12)} (before the change)` });
      }
    }
    return blocks;
  }

  private file(path: string): Promise<BaseFile | null> {
    let file = this.files.get(path);
    if (!file) {
      if (this.files.size >= MAX_BASE_FILES) return Promise.resolve(null);
      file = this.source.readFile(this.commit, path).then(async (text) => (text === null ? null : { lines: splitLines(text), outline: await outlineFile(path, text) }));
      // A file the code host does not give costs its block, never the review.
      file = file.catch(() => null);
      this.files.set(path, file);
    }
    return file;
  }
}

const withoutCarriageReturn = (line: string | undefined) => line?.replace(/\r$/, '');
