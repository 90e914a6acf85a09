import type { DiffFile } from '../prepare/diff/diff-types.js';
import { PushMap, type LineRange } from './push-map.js';

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
