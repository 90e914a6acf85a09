import type { DiffFile } from './diff/diff-types.js';
import { renderFileHeader, renderHunkSlice } from './diff/render-for-model.js';
import { describeChunks, newSegment, type ChunkSegment, type HunkSlice, type ReviewChunk } from './chunking.js';
import { countTokens } from './tokens.js';

/** One segment per hunk slice of `segment`: the pieces a chunk splits into below a file. */
export function slicesApart(segment: ChunkSegment): ChunkSegment[] {
  return segment.slices.map((slice) => newSegment(segment.file, segment.part, [slice], 0));
}

/**
 * A segment of one hunk slice cut in two at its middle changed line: both halves change lines.
 * Undefined when the slice changes fewer than two lines.
 */
export function halvesOf(segment: ChunkSegment): [ChunkSegment, ChunkSegment] | undefined {
  const [slice] = segment.slices;
  if (!slice || segment.slices.length !== 1) return undefined;
  const lines = segment.file.hunks[slice.hunk]!.lines;
  const changed: number[] = [];
  for (let at = slice.from; at < slice.to; at++) if (lines[at]!.kind !== 'context') changed.push(at);
  if (changed.length < 2) return undefined;
  const cut = changed[Math.floor(changed.length / 2)]!;
  const half = (from: number, to: number) => newSegment(segment.file, segment.part, [{ ...slice, from, to }], 0);
  return [half(slice.from, cut), half(cut, slice.to)];
}

/**
 * Chunks made of groups of segments, in order (what splitting a chunk again produces): consecutive
 * segments of one file in a group become one segment, each file's parts are numbered again across
 * the chunks, and tokens are counted again (a later part's file header says "continued"). The
 * segments given are not changed.
 */
export function regroupChunks(groups: ReadonlyArray<readonly ChunkSegment[]>, maxLineChars: number): ReviewChunk[] {
  const parts = new Map<DiffFile, number>();
  const chunks = groups.map((group, index): ReviewChunk => {
    const runs: Array<{ file: DiffFile; slices: HunkSlice[] }> = [];
    for (const piece of group) {
      const last = runs.at(-1);
      if (last?.file === piece.file) last.slices.push(...piece.slices);
      else runs.push({ file: piece.file, slices: [...piece.slices] });
    }
    const segments = runs.map(({ file, slices }) => {
      const part = (parts.get(file) ?? 0) + 1;
      parts.set(file, part);
      const tokens = slices.reduce(
        (sum, slice) => sum + countTokens(renderHunkSlice(file.hunks[slice.hunk]!, slice.from, slice.to, { maxLineChars: slice.maxLineChars ?? maxLineChars })),
        countTokens(renderFileHeader(file, part > 1)),
      );
      return newSegment(file, part, slices, tokens);
    });
    return {
      index,
      segments,
      tokens: segments.reduce((sum, segment) => sum + segment.tokens, 0),
      changedLines: segments.reduce((sum, segment) => sum + segment.changedLines, 0),
      files: [...new Set(segments.map((segment) => segment.file.path))],
      description: '',
      maxLineChars,
    };
  });
  describeChunks(chunks);
  return chunks;
}
