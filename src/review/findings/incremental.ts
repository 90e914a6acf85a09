import type { DiffFile } from '../prepare/diff/diff-types.js';
import { cleanPath } from './match-file.js';
import { PushMap, type LineRange } from './push-map.js';
import { sameProblem, type Worded } from './similarity.js';

/** A finding reported by an earlier review, in the coordinates of the commit that review read. */
export interface PreviousFinding {
  file: string;
  line: number;
  endLine?: number;
  title: string;
  comment?: string;
}

/**
 * What an incremental review (`synchronize`) knows: the findings already reported, and the diff
 * from the last reviewed commit to the new head (GitHub's compare `reviewedSha...headSha`), which
 * says both what this push changed and how line numbers moved.
 */
export interface IncrementalContext {
  previous: readonly PreviousFinding[];
  pushDiff: readonly DiffFile[];
}

/** Lines a previous finding may have drifted by and still be "the same place" (reformatting, a moved brace). */
const PLACE_TOLERANCE = 3;

/** Two ranges of one file are the same place: they overlap, or lie within `PLACE_TOLERANCE` lines of each other. */
export const samePlace = (a: LineRange, b: LineRange) => a.line - PLACE_TOLERANCE <= b.endLine && b.line <= a.endLine + PLACE_TOLERANCE;

export interface RepeatCandidate extends Worded, LineRange {
  file: string;
}

/**
 * Recognizes a finding that repeats one already reported for code this push did not touch: same
 * file, the previous range carried through the push diff lands on (or within 3 lines of) the new
 * range, and the title or comment is near-identical. A finding on lines the push changed is never a
 * repeat (the author touched the code; saying it again is news), nor is one whose earlier lines the
 * push deleted.
 */
export class RepeatDetector {
  private readonly push: PushMap;
  private readonly previousByPath = new Map<string, Array<LineRange & Worded>>();

  constructor(context: IncrementalContext) {
    this.push = new PushMap(context.pushDiff);
    for (const finding of context.previous) {
      const earlier = { line: finding.line, endLine: finding.endLine ?? finding.line };
      const file = this.push.fileOf(finding.file);
      const now = file === undefined ? earlier : this.push.carry(file, earlier);
      if (now === null) continue;
      const path = file?.path ?? cleanPath(finding.file);
      const list = this.previousByPath.get(path) ?? [];
      list.push({ ...now, title: finding.title, comment: finding.comment });
      this.previousByPath.set(path, list);
    }
  }

  isRepeat(finding: RepeatCandidate): boolean {
    const previous = this.previousByPath.get(finding.file);
    if (!previous || this.push.touches(finding.file, finding)) return false;
    return previous.some((earlier) => samePlace(earlier, finding) && sameProblem(earlier, finding));
  }
}
