import type { DiffFile } from '../prepare/diff/diff-types.js';
import { samePlace } from './incremental.js';
import { PushMap, type LineRange } from './push-map.js';
import { sameProblem, type Worded } from './similarity.js';

/**
 * The earlier review's findings that still stand after a push: on code the push did not touch,
 * moved to their lines at the new head. A finding on code the push changed or deleted goes: the
 * review of the push judges that code afresh.
 */
export function carryOverFindings<T extends LineRange & { file: string }>(previous: readonly T[], pushDiff: readonly DiffFile[]): T[] {
  const push = new PushMap(pushDiff);
  const carried: T[] = [];
  for (const finding of previous) {
    const file = push.fileOf(finding.file);
    if (file === undefined) {
      carried.push(finding);
      continue;
    }
    const moved = push.carry(file, finding);
    if (moved !== null && !push.touches(file.path, moved)) carried.push({ ...finding, file: file.path, ...moved });
  }
  return carried;
}

type Placed = LineRange & Worded & { file: string };

/**
 * The push's findings and the carried ones as one list. The model sometimes reports a carried
 * finding again, on lines next to ones the push touched (so it is no repeat the selection could
 * drop): that report is the carried finding, seen afresh. It keeps the carried id, so publishing
 * posts nothing new and leaves its thread open, and the team's verdict stays on it; its lines and
 * words are the fresh ones, read at the new head.
 */
export function withCarried<F extends Placed, C extends Placed & { id?: string }>(fresh: readonly F[], carried: readonly C[]): Array<F | (F & { id: string }) | C> {
  const left = [...carried];
  const joined = fresh.map((finding) => {
    const index = left.findIndex((old) => old.id !== undefined && old.file === finding.file && samePlace(old, finding) && sameProblem(old, finding));
    if (index < 0) return finding;
    const [old] = left.splice(index, 1);
    return { ...finding, id: old!.id! };
  });
  return [...joined, ...left];
}
