import type { LinePoint, TextPosition } from '../../adapters/gitlab/gitlab-client.js';
import { gitlabLineCode } from '../../adapters/gitlab/gitlab-diff.js';
import type { GitLabDiffRefs } from '../../adapters/gitlab/gitlab-schemas.js';
import type { DiffFile } from '../../review/prepare/diff/diff-types.js';

interface NewSideLine {
  newLine: number;
  /** Set for an unchanged (context) line: GitLab then wants `old_line` too. */
  oldLine: number | undefined;
  point: LinePoint;
}

/**
 * The new side's lines of a file's diff with GitLab's line codes: `<sha1 of the path>_<old>_<new>`,
 * where an added line carries the old side's counter at that point (as GitLab's diff parser counts).
 */
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
      lines.set(newLine, { newLine, oldLine: context ? oldLine : undefined, point: { lineCode: gitlabLineCode(file.path, oldLine, newLine), type: context ? null : 'new' } });
      if (context) oldLine++;
      newLine++;
    }
  }
  return lines;
}

/**
 * Where a finding's discussion goes (decisions.md §12): anchored on its last line, `new_line` plus
 * `old_line` when that line is unchanged context; a span carries `line_range` from its first line.
 * Undefined when the lines are not in the diff (the finding then goes to the summary).
 */
export function findingPosition(files: DiffFile[], diffRefs: GitLabDiffRefs, finding: { file: string; line: number; endLine: number }): TextPosition | undefined {
  const file = files.find((candidate) => candidate.path === finding.file && candidate.status !== 'deleted');
  if (file === undefined) return undefined;
  const lines = newSideLines(file);
  const end = lines.get(finding.endLine);
  if (end === undefined) return undefined;
  const start = finding.endLine > finding.line ? lines.get(finding.line) : undefined;
  return {
    diffRefs,
    oldPath: file.oldPath ?? file.path,
    newPath: file.path,
    newLine: end.newLine,
    ...(end.oldLine === undefined ? {} : { oldLine: end.oldLine }),
    ...(start === undefined ? {} : { lineRange: { start: start.point, end: end.point } }),
  };
}
