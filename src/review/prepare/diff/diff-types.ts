/** One line of a hunk. Added lines have only `newLine`, deleted lines only `oldLine`, context lines both. */
export interface DiffLine {
  kind: 'add' | 'del' | 'context';
  /** The line without its diff marker and without a line ending. */
  text: string;
  oldLine?: number;
  newLine?: number;
  /** The diff said `\ No newline at end of file` after this line. */
  noNewlineAtEnd?: true;
}

export interface DiffHunk {
  /**
   * First old / new line number of the hunk's range. For an empty range (`-0,0` of a new file) this
   * is where the lines would be (1), not the unified-diff convention (0); `renderHunkHeader` prints
   * the convention back.
   */
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  /** Git's section heading after the second `@@` (usually the enclosing function), or ''. */
  heading: string;
  lines: DiffLine[];
}

/** `copied`: a new file made from `oldPath` (git's `copy from`/`copy to`); its hunks are against that source. */
export type FileStatus = 'added' | 'modified' | 'deleted' | 'renamed' | 'copied';

export interface DiffFile {
  /** The file's path in the new commit (for a deleted file: the path it had). No `a/`/`b/` prefix. */
  path: string;
  /** The path in the old commit: differs from `path` when renamed or copied; null when the file is added. */
  oldPath: string | null;
  status: FileStatus;
  binary: boolean;
  hunks: DiffHunk[];
  additions: number;
  deletions: number;
  /** Bytes of this file's section of the diff as received (the size limit reads it). */
  diffBytes?: number;
  /** Set when this file's section of the diff was malformed; the file then has no hunks. */
  parseError?: string;
}
