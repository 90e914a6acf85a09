import type { DiffFile } from '../prepare/diff/diff-types.js';
import { mapOldLineToNew, touchedNewLines } from '../prepare/diff/line-map.js';
import { cleanPath } from './match-file.js';

export interface LineRange {
  line: number;
  endLine: number;
}

/**
 * What a push did to the code an earlier review read, from the push's diff (GitHub's compare of
 * the reviewed commit and the new head): which file an earlier path became, where its lines moved,
 * and which new lines the push touched.
 */
export class PushMap {
  private readonly byOldPath = new Map<string, DiffFile>();
  private readonly byPath = new Map<string, DiffFile>();
  private readonly touched = new Map<DiffFile, Set<number>>();

  constructor(pushDiff: readonly DiffFile[]) {
    for (const file of pushDiff) {
      this.byPath.set(file.path, file);
      this.byOldPath.set(file.oldPath ?? file.path, file);
    }
  }

  /** The push's file for a path an earlier review cited; undefined when the push left the file alone. */
  fileOf(previousPath: string): DiffFile | undefined {
    const path = cleanPath(previousPath);
    return this.byOldPath.get(path) ?? this.byOldPath.get(path.replace(/^[ab]\//, ''));
  }

  /** Where an earlier range of `file` is at the new head, or null when the push deleted those lines. */
  carry(file: DiffFile, { line, endLine }: LineRange): LineRange | null {
    const start = mapOldLineToNew(file, line);
    const end = mapOldLineToNew(file, endLine);
    if (start === null || end === null) return null;
    return { line: start, endLine: Math.max(start, end) };
  }

  /** Whether the push changed any of the new-file lines of `range` in the file now at `path`. */
  touches(path: string, { line, endLine }: LineRange): boolean {
    const file = this.byPath.get(path);
    if (file === undefined) return false;
    let lines = this.touched.get(file);
    if (lines === undefined) this.touched.set(file, (lines = touchedNewLines(file)));
    for (let current = line; current <= endLine; current++) if (lines.has(current)) return true;
    return false;
  }
}
