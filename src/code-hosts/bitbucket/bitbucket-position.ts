import type { DiffFile } from '../../review/prepare/diff/diff-types.js';
import type { InlineAnchor } from './bitbucket-client.js';

/**
 * Where findings' inline comments go on one diff (decisions.md §16, facts §3): `to` is the finding's
 * last line, which must be on the diff's new side (an added or an unchanged line); a span adds
 * `start_to` = its first line when that line is on the new side too, else the comment sits on the
 * last line alone. The returned function gives undefined when the last line is not in the diff (the
 * finding then goes to the summary). Each file's lines are worked out once, on its first finding.
 */
export function inlineAnchors(files: DiffFile[]): (finding: { file: string; line: number; endLine: number }) => InlineAnchor | undefined {
  const byPath = new Map<string, Set<number> | undefined>();
  const linesOf = (path: string): Set<number> | undefined => {
    if (byPath.has(path)) return byPath.get(path);
    const file = files.find((candidate) => candidate.path === path && candidate.status !== 'deleted');
    const lines = file === undefined ? undefined : new Set(file.hunks.flatMap((hunk) => hunk.lines.flatMap((line) => (line.kind !== 'del' && line.newLine !== undefined ? [line.newLine] : []))));
    byPath.set(path, lines);
    return lines;
  };
  return (finding) => {
    const lines = linesOf(finding.file);
    if (lines === undefined || !lines.has(finding.endLine)) return undefined;
    const span = finding.line < finding.endLine && lines.has(finding.line);
    return { path: finding.file, to: finding.endLine, ...(span ? { startTo: finding.line } : {}) };
  };
}
