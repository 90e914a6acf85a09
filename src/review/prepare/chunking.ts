import type { ReviewCoverage } from '../../db/schema/reviews.js';
import type { DiffFile, DiffHunk } from './diff/diff-types.js';
import {
  DEFAULT_MAX_LINE_CHARS,
  renderFileHeader,
  renderHunk,
  renderHunkHeader,
  renderHunkSlice,
  renderLine,
  sliceRange,
} from './diff/render-for-model.js';
import { countTokens, countTokensUpTo } from './tokens.js';
import { runToEnd, type Steps } from '../../lib/time-slices.js';

/** Lines `[from, to)` of hunk `hunk` of the segment's file. */
export interface HunkSlice {
  hunk: number;
  from: number;
  to: number;
  /** Set on a one-line slice whose line alone exceeded the budget and was cut further. */
  maxLineChars?: number;
}

/** A file, or a part of one, inside a chunk. Holds references into the parsed diff, never text. */
export interface ChunkSegment {
  file: DiffFile;
  /** 1-based; a file kept whole is part 1 of 1. */
  part: number;
  parts: number;
  slices: HunkSlice[];
  tokens: number;
  /** Added and deleted lines in this segment. */
  changedLines: number;
  /** New-file lines covered (first, last); null when the segment only deletes. */
  newLines: [number, number] | null;
}

export interface ReviewChunk {
  /** 0-based position; chunks follow the diff's file order. */
  index: number;
  segments: ChunkSegment[];
  /** Exact o200k tokens of `renderChunk(chunk)`, at most the budget. */
  tokens: number;
  changedLines: number;
  /** Paths of the files (whole or in part) in this chunk. */
  files: string[];
  /** For logs, progress and the prompt: "3 files, 120 changed lines: a.ts, b.ts, c.ts". */
  description: string;
  maxLineChars: number;
}

export interface ChunkingOptions {
  /** Tokens the rendered diff of one call may take (context length − prompt − output reserve). */
  tokenBudget: number;
  maxLineChars?: number;
}

/** Below this, file and hunk headers would crowd out the code. */
export const MIN_TOKEN_BUDGET = 256;

/**
 * Packs the reviewable files into chunks whose rendered diff fits `tokenBudget`, in diff order
 * (neighbouring paths are related code, so they share a chunk). Next-fit: a file that fits the room
 * left joins the current chunk; one that fits an empty chunk starts the next; a larger file is split
 * at hunk boundaries, and a hunk larger than a chunk at line boundaries (each part repeats the file
 * header and a hunk header recomputed for its lines). Every changed line of every file lands in
 * exactly one chunk; this is checked before returning, so a bug throws instead of dropping code.
 *
 * Hunks are rendered one at a time to count their tokens and dropped: chunks keep slices of the
 * parsed diff, and `renderChunk` makes the text when the chunk is sent.
 */
export function chunkFiles(files: readonly DiffFile[], options: ChunkingOptions): ReviewChunk[] {
  return runToEnd(chunkingSteps(files, options));
}

/** `chunkFiles`, pausing after each file (see `runInSlices`); the budget is checked at once. */
export function chunkingSteps(files: readonly DiffFile[], options: ChunkingOptions): Steps<ReviewChunk[]> {
  const budget = Math.floor(options.tokenBudget);
  if (!(budget >= MIN_TOKEN_BUDGET)) throw new RangeError(`tokenBudget must be at least ${MIN_TOKEN_BUDGET} tokens (got ${options.tokenBudget})`);
  return packing(files, budget, options.maxLineChars ?? DEFAULT_MAX_LINE_CHARS);
}

function* packing(files: readonly DiffFile[], budget: number, maxLineChars: number): Steps<ReviewChunk[]> {
  const packer = new Packer(budget, maxLineChars);
  for (const file of files) {
    packer.addFile(file);
    yield;
  }
  const chunks = packer.finish();
  checkCompleteness(files, chunks, budget);
  return chunks;
}

/** The text sent to the model for one chunk (see `DIFF_FORMAT_GUIDE`). */
export function renderChunk(chunk: ReviewChunk): string {
  const parts: string[] = [];
  for (const segment of chunk.segments) {
    parts.push(renderFileHeader(segment.file, segment.part > 1));
    for (const slice of segment.slices) {
      const hunk = segment.file.hunks[slice.hunk]!;
      parts.push(renderHunkSlice(hunk, slice.from, slice.to, { maxLineChars: slice.maxLineChars ?? chunk.maxLineChars }));
    }
  }
  return parts.join('');
}

/** What the review covers: all files and changed lines of the diff, and those left after the skip rules. */
export function computeCoverage(files: readonly DiffFile[], reviewable: readonly DiffFile[]): ReviewCoverage {
  const lines = (list: readonly DiffFile[]) => list.reduce((sum, file) => sum + file.additions + file.deletions, 0);
  return { files: files.length, reviewableFiles: reviewable.length, lines: lines(files), reviewableLines: lines(reviewable) };
}

/** A worst-case hunk header: a part's real numbers have no more digits than these. */
const WIDEST_RANGE = { oldStart: 9_999_999, oldLines: 9_999_999, newStart: 9_999_999, newLines: 9_999_999 };

class Packer {
  private readonly chunks: ReviewChunk[] = [];
  private segments: ChunkSegment[] = [];
  private used = 0;
  /** The segment hunks are being added to, while a file is split. */
  private open: ChunkSegment | null = null;

  constructor(
    private readonly budget: number,
    private readonly maxLineChars: number,
  ) {}

  addFile(file: DiffFile) {
    const headerTokens = countTokens(renderFileHeader(file));
    const hunkTokens = file.hunks.map((hunk) => countTokensUpTo(renderHunk(hunk, { maxLineChars: this.maxLineChars }), this.budget));
    const total = hunkTokens.reduce((sum, tokens) => sum + tokens, headerTokens);
    if (total <= this.budget) {
      if (total > this.room) this.flush();
      const slices = file.hunks.map((hunk, index) => ({ hunk: index, from: 0, to: hunk.lines.length }));
      this.push(newSegment(file, 1, slices, total));
      return;
    }
    this.splitFile(file, headerTokens, hunkTokens);
  }

  finish(): ReviewChunk[] {
    this.flush();
    describeChunks(this.chunks);
    return this.chunks;
  }

  private get room() {
    return this.budget - this.used;
  }

  private splitFile(file: DiffFile, headerTokens: number, hunkTokens: number[]) {
    const continuedHeaderTokens = countTokens(renderFileHeader(file, true));
    let part = 0;
    /** Makes sure a segment of this file is open in the current chunk with `needed` tokens of room. */
    const ensureRoom = (needed: number) => {
      if (this.open && this.room >= needed) return this.open;
      if (this.open) this.flush();
      const header = part === 0 ? headerTokens : continuedHeaderTokens;
      if (this.room < header + needed) this.flush();
      part++;
      this.open = newSegment(file, part, [], header);
      this.push(this.open);
      return this.open;
    };

    file.hunks.forEach((hunk, index) => {
      const tokens = hunkTokens[index]!;
      if (tokens + continuedHeaderTokens <= this.budget) {
        const segment = ensureRoom(tokens);
        this.grow(segment, { hunk: index, from: 0, to: hunk.lines.length }, tokens, hunk);
      } else {
        this.splitHunk(hunk, index, continuedHeaderTokens, ensureRoom);
      }
    });
    this.open = null;
  }

  private splitHunk(hunk: DiffHunk, index: number, continuedHeaderTokens: number, ensureRoom: (needed: number) => ChunkSegment) {
    const lineTokens = hunk.lines.map((line) => countTokens(renderLine(line, this.maxLineChars)));
    const reserve = countTokens(renderHunkHeader(WIDEST_RANGE, hunk.heading));
    let from = 0;
    while (from < hunk.lines.length) {
      const first = lineTokens[from]!;
      if (reserve + first + continuedHeaderTokens > this.budget) {
        this.placeOversizedLine(hunk, index, from, reserve, continuedHeaderTokens, ensureRoom);
        from++;
        continue;
      }
      const segment = ensureRoom(reserve + first);
      const room = this.room - reserve;
      let to = from;
      let sum = 0;
      while (to < hunk.lines.length && sum + lineTokens[to]! <= room) sum += lineTokens[to++]!;
      const headerTokens = countTokens(renderHunkHeader(sliceRange(hunk, from, to), hunk.heading));
      this.grow(segment, { hunk: index, from, to }, headerTokens + sum, hunk);
      from = to;
    }
  }

  /** One line longer than a whole chunk (a data blob): shown alone, cut until it fits. */
  private placeOversizedLine(
    hunk: DiffHunk,
    index: number,
    at: number,
    reserve: number,
    continuedHeaderTokens: number,
    ensureRoom: (needed: number) => ChunkSegment,
  ) {
    const line = hunk.lines[at]!;
    const available = this.budget - continuedHeaderTokens - reserve;
    let chars = Math.min(this.maxLineChars, line.text.length);
    let tokens = countTokens(renderLine(line, chars));
    while (tokens > available && chars > 1) {
      chars = Math.max(1, Math.floor((chars * available * 0.9) / tokens));
      tokens = countTokens(renderLine(line, chars));
    }
    if (tokens > available) throw new RangeError(`tokenBudget ${this.budget} cannot hold one line with its file and hunk headers`);
    const segment = ensureRoom(this.budget - continuedHeaderTokens);
    const headerTokens = countTokens(renderHunkHeader(sliceRange(hunk, at, at + 1), hunk.heading));
    this.grow(segment, { hunk: index, from: at, to: at + 1, maxLineChars: chars }, headerTokens + tokens, hunk);
  }

  private grow(segment: ChunkSegment, slice: HunkSlice, tokens: number, hunk: DiffHunk) {
    segment.slices.push(slice);
    segment.tokens += tokens;
    this.used += tokens;
    account(segment, hunk, slice);
  }

  private push(segment: ChunkSegment) {
    this.segments.push(segment);
    this.used += segment.tokens;
  }

  private flush() {
    this.open = null;
    if (this.segments.length === 0) return;
    const segments = this.segments;
    this.chunks.push({
      index: this.chunks.length,
      segments,
      tokens: this.used,
      changedLines: segments.reduce((sum, segment) => sum + segment.changedLines, 0),
      files: [...new Set(segments.map((segment) => segment.file.path))],
      description: '',
      maxLineChars: this.maxLineChars,
    });
    this.segments = [];
    this.used = 0;
  }
}

export function newSegment(file: DiffFile, part: number, slices: HunkSlice[], tokens: number): ChunkSegment {
  const segment: ChunkSegment = { file, part, parts: 1, slices: [], tokens, changedLines: 0, newLines: null };
  for (const slice of slices) {
    segment.slices.push(slice);
    account(segment, file.hunks[slice.hunk]!, slice);
  }
  return segment;
}

/** Adds a slice's changed lines and new-line range to its segment. */
function account(segment: ChunkSegment, hunk: DiffHunk, slice: HunkSlice) {
  for (let index = slice.from; index < slice.to; index++) {
    const line = hunk.lines[index]!;
    if (line.kind !== 'context') segment.changedLines++;
    if (line.newLine !== undefined) {
      if (segment.newLines === null) segment.newLines = [line.newLine, line.newLine];
      else segment.newLines[1] = line.newLine;
    }
  }
}

const LISTED_SEGMENTS = 4;

/** Sets each segment's part count and each chunk's description ("3 files, 120 changed lines: …"). */
export function describeChunks(chunks: ReviewChunk[]) {
  const parts = new Map<DiffFile, number>();
  for (const chunk of chunks) for (const segment of chunk.segments) parts.set(segment.file, Math.max(parts.get(segment.file) ?? 0, segment.part));
  for (const chunk of chunks) {
    for (const segment of chunk.segments) segment.parts = parts.get(segment.file) ?? 1;
    const labels = chunk.segments.slice(0, LISTED_SEGMENTS).map(segmentLabel);
    const more = chunk.segments.length - LISTED_SEGMENTS;
    const fileCount = chunk.files.length;
    chunk.description =
      `${fileCount} file${fileCount === 1 ? '' : 's'}, ${chunk.changedLines} changed line${chunk.changedLines === 1 ? '' : 's'}: ` +
      labels.join(', ') +
      (more > 0 ? `, and ${more} more` : '');
  }
}

function segmentLabel(segment: ChunkSegment): string {
  if (segment.parts === 1) return segment.file.path;
  const range = segment.newLines ? `, lines ${segment.newLines[0]}–${segment.newLines[1]}` : '';
  return `${segment.file.path} (part ${segment.part} of ${segment.parts}${range})`;
}

/** The no-silent-truncation guarantee, checked: every changed line once, no chunk over budget. */
function checkCompleteness(files: readonly DiffFile[], chunks: readonly ReviewChunk[], budget: number) {
  const expected = files.reduce((sum, file) => sum + file.additions + file.deletions, 0);
  const placed = chunks.reduce((sum, chunk) => sum + chunk.changedLines, 0);
  const over = chunks.find((chunk) => chunk.tokens > budget);
  if (placed !== expected || over) {
    throw new Error(`chunking lost its invariant: ${placed} of ${expected} changed lines placed${over ? `, chunk ${over.index} has ${over.tokens} tokens` : ''}`);
  }
}
