import type { DiffFile } from '../diff/diff-types.js';
import { mapOldLineToNew, touchedNewLines } from '../diff/line-map.js';
import { cleanPath } from './match-file.js';

interface Located {
  file: string;
  line: number;
  endLine: number;
}

/**
 * The earlier review's findings that still stand after a push: on code the push did not touch,
 * moved to their lines at the new head. A finding on code the push changed or deleted goes: the
 * review of the push judges that code afresh.
 */
export function carryOverFindings<T extends Located>(previous: readonly T[], pushDiff: readonly DiffFile[]): T[] {
  const byOldPath = new Map<string, DiffFile>();
  for (const file of pushDiff) byOldPath.set(file.oldPath ?? file.path, file);
  const touched = new Map<DiffFile, Set<number>>();

  const carried: T[] = [];
  for (const finding of previous) {
    const file = byOldPath.get(cleanPath(finding.file));
    if (file === undefined) {
      carried.push(finding);
      continue;
    }
    const line = mapOldLineToNew(file, finding.line);
    const endLine = mapOldLineToNew(file, finding.endLine);
    if (line === null || endLine === null) continue;
    let lines = touched.get(file);
    if (lines === undefined) touched.set(file, (lines = touchedNewLines(file)));
    let changed = false;
    for (let current = line; current <= Math.max(line, endLine) && !changed; current++) changed = lines.has(current);
    if (!changed) carried.push({ ...finding, file: file.path, line, endLine: Math.max(line, endLine) });
  }
  return carried;
}
