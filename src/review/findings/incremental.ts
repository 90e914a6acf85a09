import type { DiffFile } from '../diff/diff-types.js';
import { mapOldLineToNew, touchedNewLines } from '../diff/line-map.js';
import { cleanPath } from './match-file.js';
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

interface Located extends Worded {
  start: number;
  end: number;
}

export interface RepeatCandidate extends Worded {
  file: string;
  line: number;
  endLine: number;
}

/**
 * Recognizes a finding that repeats one already reported for code this push did not touch: same
 * file, the previous range carried through the push diff lands on (or within 3 lines of) the new
 * range, and the title or comment is near-identical. A finding on lines the push changed is never a
 * repeat (the author touched the code; saying it again is news), nor is one whose earlier lines the
 * push deleted.
 */
export class RepeatDetector {
  private readonly previousByPath = new Map<string, Located[]>();
  private readonly pushByPath = new Map<string, DiffFile>();
  private readonly touched = new Map<string, Set<number>>();

  constructor(context: IncrementalContext) {
    const pushByOldPath = new Map<string, DiffFile>();
    for (const file of context.pushDiff) {
      this.pushByPath.set(file.path, file);
      if (file.oldPath !== null) pushByOldPath.set(file.oldPath, file);
    }
    for (const finding of context.previous) {
      const path = cleanPath(finding.file);
      const moved = pushByOldPath.get(path) ?? pushByOldPath.get(path.replace(/^[ab]\//, ''));
      const located = moved ? carry(moved, finding) : { start: finding.line, end: finding.endLine ?? finding.line, title: finding.title, comment: finding.comment };
      if (!located) continue;
      const currentPath = moved?.path ?? path;
      const list = this.previousByPath.get(currentPath) ?? [];
      list.push(located);
      this.previousByPath.set(currentPath, list);
    }
  }

  isRepeat(finding: RepeatCandidate): boolean {
    const previous = this.previousByPath.get(finding.file);
    if (!previous || this.changedInPush(finding)) return false;
    return previous.some(
      (earlier) => earlier.start - PLACE_TOLERANCE <= finding.endLine && finding.line <= earlier.end + PLACE_TOLERANCE && sameProblem(earlier, finding),
    );
  }

  private changedInPush(finding: RepeatCandidate): boolean {
    const file = this.pushByPath.get(finding.file);
    if (!file) return false;
    let touched = this.touched.get(file.path);
    if (!touched) {
      touched = touchedNewLines(file);
      this.touched.set(file.path, touched);
    }
    for (let line = finding.line; line <= finding.endLine; line++) if (touched.has(line)) return true;
    return false;
  }
}

/** A previous finding's range in the new head, or null when the push deleted the file or those lines. */
function carry(file: DiffFile, finding: PreviousFinding): Located | null {
  const start = mapOldLineToNew(file, finding.line);
  const end = mapOldLineToNew(file, finding.endLine ?? finding.line);
  if (start === null || end === null) return null;
  return { start, end: Math.max(start, end), title: finding.title, comment: finding.comment };
}
