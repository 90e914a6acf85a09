import type { ChangedFile } from '../../code-context/context-block.js';
import type { ReviewChunk } from './chunking.js';

/**
 * The new-file lines a chunk changes, per file: each added line, and for a deletion the line now in
 * its place (the code around a removal is read at the head, where the reviewer judges it).
 */
export function changedLinesOf(chunk: ReviewChunk): ChangedFile[] {
  const byPath = new Map<string, Set<number>>();
  for (const segment of chunk.segments) {
    const lines = byPath.get(segment.file.path) ?? new Set<number>();
    byPath.set(segment.file.path, lines);
    for (const slice of segment.slices) {
      const hunkLines = segment.file.hunks[slice.hunk]!.lines;
      // For a deletion: the next line the new file has, else the last one before it.
      let previous: number | undefined;
      let pending = 0;
      for (let index = slice.from; index < slice.to; index++) {
        const line = hunkLines[index]!;
        if (line.kind === 'del') {
          pending++;
          continue;
        }
        if (line.newLine === undefined) continue;
        if (line.kind === 'add' || pending > 0) lines.add(line.newLine);
        pending = 0;
        previous = line.newLine;
      }
      if (pending > 0) {
        const after = hunkLines.slice(slice.to).find((line) => line.newLine !== undefined)?.newLine ?? previous;
        if (after !== undefined) lines.add(after);
      }
    }
  }
  return [...byPath].map(([path, lines]) => ({ path, lines: [...lines].sort((a, b) => a - b) }));
}

/** A file's lines removed by hunks that only remove, numbered in the base commit, with their text. */
export interface RemovedLines {
  /** The path in the base commit. */
  path: string;
  /** Base-file line number → the removed line's text. */
  lines: Map<number, string>;
}

/**
 * The lines of a chunk's hunks that only remove lines (decisions.md §11: their enclosing scope is
 * read at the base commit, where those lines still are). A hunk that also adds lines is judged at
 * the head, as `changedLinesOf` places it.
 */
export function removalOnlyLinesOf(chunk: ReviewChunk): RemovedLines[] {
  const byPath = new Map<string, Map<number, string>>();
  for (const segment of chunk.segments) {
    const path = segment.file.oldPath ?? segment.file.path;
    for (const slice of segment.slices) {
      const hunk = segment.file.hunks[slice.hunk]!;
      if (hunk.lines.some((line) => line.kind === 'add')) continue;
      for (const line of hunk.lines.slice(slice.from, slice.to)) {
        if (line.kind !== 'del' || line.oldLine === undefined) continue;
        const lines = byPath.get(path) ?? new Map<number, string>();
        byPath.set(path, lines);
        lines.set(line.oldLine, line.text);
      }
    }
  }
  return [...byPath].map(([path, lines]) => ({ path, lines }));
}
