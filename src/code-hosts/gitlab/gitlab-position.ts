import type { LinePoint, TextPosition } from './gitlab-client.js';
import { lineCodePrefix } from './gitlab-diff.js';
import type { GitLabDiffRefs } from './gitlab-schemas.js';
import type { DiffFile } from '../../review/prepare/diff/diff-types.js';

interface NewSideLine {
  /** The old side's counter at this line: the old line of an unchanged one, where an added one sits. */
  oldCounter: number;
  /** An unchanged (context) line: GitLab then wants `old_line` too. */
  context: boolean;
}

/** One file of the diff as positions need it: its new side's lines, and its line codes' shared prefix. */
interface FileLines {
  file: DiffFile;
  lines: Map<number, NewSideLine>;
  codePrefix: string;
}

/** The new side's lines of a file's diff, counted as GitLab's diff parser counts them. */
function newSideLines(file: DiffFile): Map<number, NewSideLine> {
  const lines = new Map<number, NewSideLine>();
  for (const hunk of file.hunks) {
    let oldLine = hunk.oldStart;
    let newLine = hunk.newStart;
    for (const line of hunk.lines) {
      if (line.kind === 'del') {
        oldLine++;
        continue;
      }
      const context = line.kind === 'context';
      lines.set(newLine, { oldCounter: oldLine, context });
      if (context) oldLine++;
      newLine++;
    }
  }
  return lines;
}

/** GitLab's `line_code` (`<sha1 of the path>_<old>_<new>`, an added line carrying the old side's counter) and the side of a line. */
const point = (file: FileLines, newLine: number, line: NewSideLine): LinePoint => ({ lineCode: `${file.codePrefix}_${line.oldCounter}_${newLine}`, type: line.context ? null : 'new' });

/**
 * Where findings' discussions go on one diff (decisions.md §12): anchored on the last line,
 * `new_line` plus `old_line` when that line is unchanged context; a span carries `line_range` from
 * its first line. The returned function gives undefined when the lines are not in the diff (the
 * finding then goes to the summary). Each file's lines and path digest are worked out once, on
 * its first finding: a run posts up to 25 findings, often on the same file.
 */
export function diffPositions(files: DiffFile[], diffRefs: GitLabDiffRefs): (finding: { file: string; line: number; endLine: number }) => TextPosition | undefined {
  const byPath = new Map<string, FileLines | undefined>();
  const linesOf = (path: string): FileLines | undefined => {
    if (byPath.has(path)) return byPath.get(path);
    const file = files.find((candidate) => candidate.path === path && candidate.status !== 'deleted');
    const read = file === undefined ? undefined : { file, lines: newSideLines(file), codePrefix: lineCodePrefix(file.path) };
    byPath.set(path, read);
    return read;
  };
  return (finding) => {
    const read = linesOf(finding.file);
    if (read === undefined) return undefined;
    const end = read.lines.get(finding.endLine);
    if (end === undefined) return undefined;
    const start = finding.endLine > finding.line ? read.lines.get(finding.line) : undefined;
    return {
      diffRefs,
      oldPath: read.file.oldPath ?? read.file.path,
      newPath: read.file.path,
      newLine: finding.endLine,
      ...(end.context ? { oldLine: end.oldCounter } : {}),
      ...(start === undefined ? {} : { lineRange: { start: point(read, finding.line, start), end: point(read, finding.endLine, end) } }),
    };
  };
}
