import type { DiffFile } from './diff-types.js';

export interface LineSpan {
  start: number;
  end: number;
}

/** The new-file lines each hunk shows (added and context lines), in order; a hunk that only deletes shows none. */
export function newSpans(file: DiffFile): LineSpan[] {
  const spans: LineSpan[] = [];
  for (const hunk of file.hunks) if (hunk.newLines > 0) spans.push({ start: hunk.newStart, end: hunk.newStart + hunk.newLines - 1 });
  return spans;
}

/**
 * Where line `oldLine` of the old file is in the new file, or null when this diff deleted it.
 * Lines outside every hunk move by the lines added and deleted above them.
 */
export function mapOldLineToNew(file: DiffFile, oldLine: number): number | null {
  if (file.status === 'deleted') return null;
  let shift = 0;
  for (const hunk of file.hunks) {
    if (oldLine < hunk.oldStart) return oldLine + shift;
    if (oldLine < hunk.oldStart + hunk.oldLines) {
      const line = hunk.lines.find((candidate) => candidate.oldLine === oldLine);
      return line?.newLine ?? null;
    }
    shift = hunk.newStart + hunk.newLines - (hunk.oldStart + hunk.oldLines);
  }
  return oldLine + shift;
}

/**
 * New-file lines this diff touched: added lines, and the lines on both sides of a deletion (code
 * removed between two lines changes what they do together).
 */
export function touchedNewLines(file: DiffFile): Set<number> {
  const touched = new Set<number>();
  for (const hunk of file.hunks) {
    let previousNew = hunk.newStart - 1;
    let afterDeletion = false;
    for (const line of hunk.lines) {
      if (line.kind === 'del') {
        if (previousNew >= 1) touched.add(previousNew);
        afterDeletion = true;
        continue;
      }
      const newLine = line.newLine!;
      if (line.kind === 'add' || afterDeletion) touched.add(newLine);
      afterDeletion = false;
      previousNew = newLine;
    }
    if (afterDeletion) touched.add(previousNew + 1);
  }
  return touched;
}
