import { SCOPES_SHARE, type ContextBlock } from '../../code-context/context-block.js';
import type { ChunkSegment, ReviewChunk } from '../prepare/chunking.js';
import { halvesOf, regroupChunks, slicesApart } from '../prepare/regroup-chunks.js';
import { countTokens } from '../prepare/tokens.js';
import { fitChunkContext, scopesFit } from './chunk-context.js';
import { contextHeading, fitContext } from './context-section.js';
import { toolRoomOf } from './review-tools.js';

/** A chunk to review, with the context blocks gathered for it. */
export interface PlannedChunk {
  chunk: ReviewChunk;
  blocks: ContextBlock[];
}

export interface ScopeSplitOptions {
  /** The chunk's context blocks, in the order the budget serves them. */
  gather: (chunk: ReviewChunk) => Promise<ContextBlock[]>;
  /** Tokens the chunk's prompt leaves for context when the diff is in `chunkCount` chunks (`promptRoom`). */
  room: (chunk: ReviewChunk, chunkCount: number) => number;
  /** Deep mode's tools keep part of the room (`fitChunkContext`). */
  tools: boolean;
  commit: string | null;
  /** At most this many chunks in all: past it, a split chunk's last part allowed holds the rest of it. */
  maxChunks: number;
}

interface Group {
  segments: readonly ChunkSegment[];
  /** Gathered for these segments; unset until checked. */
  blocks?: ContextBlock[];
}

/** A piece of a chunk (a file, a hunk, half a hunk) with what its scopes need, measured alone. */
interface Piece {
  segment: ChunkSegment;
  scopeTokens: number;
  others: boolean;
  fitsAlone: boolean;
}

/**
 * The chunks with their context, a chunk split again when its enclosing scopes do not all fit the
 * room its prompt leaves (decisions.md §11: each changed line's whole function beside it). A smaller
 * part leaves more room and needs fewer scopes. Its files are packed in diff order, next-fit, into
 * parts whose scopes fit; a file whose scopes do not fit alone is packed hunk by hunk the same way,
 * and a hunk whose scopes do not fit alone is cut in halves at its middle changed line until they
 * do or a half changes one line. Pieces are measured once each and packed by their sums; each part
 * is then checked as the prompt will be, one that still does not fit is packed again piece by piece
 * with that check, and neighbours that fit together are joined. Chunks are numbered again only when one was split; otherwise they come
 * back as given.
 */
export async function splitForScopes(chunks: readonly ReviewChunk[], options: ScopeSplitOptions): Promise<PlannedChunk[]> {
  const maxLineChars = chunks[0]?.maxLineChars ?? 0;
  const provisional = (segments: readonly ChunkSegment[]) => regroupChunks([segments], maxLineChars)[0]!;
  const fits = async (segments: readonly ChunkSegment[], count: number) => {
    const candidate = provisional(segments);
    const blocks = await options.gather(candidate);
    return { ok: scopesFit(blocks, fitChunkContext(blocks, options.room(candidate, count), options.tools, options.commit)), blocks };
  };
  const groups: Group[][] = [];
  let total = chunks.length;
  for (const chunk of chunks) {
    const checked = await fits(chunk.segments, total);
    const whole = [{ segments: chunk.segments, blocks: checked.blocks }];
    if (total >= options.maxChunks || checked.ok) {
      groups.push(whole);
      continue;
    }
    // Parts are sized as if the diff had one more chunk than now: the prompt then says which part it is.
    const count = Math.max(2, total + 1);
    const parts = await splitChunk(chunk, count, options, provisional, (segments) => fits(segments, count));
    // Past the cap, the last part allowed takes the rest (its scopes fitted as before).
    const allowed = Math.min(parts.length, options.maxChunks - total + 1);
    if (allowed < 2) {
      groups.push(whole);
      continue;
    }
    const rest = parts.slice(allowed - 1).flatMap((part) => part.segments);
    groups.push([...parts.slice(0, allowed - 1), allowed === parts.length ? parts.at(-1)! : { segments: rest }]);
    total += allowed - 1;
  }
  const flat = groups.flat();
  if (flat.length === chunks.length) return chunks.map((chunk, at) => ({ chunk, blocks: flat[at]!.blocks! }));
  const regrouped = regroupChunks(
    flat.map((group) => group.segments),
    maxLineChars,
  );
  const planned: PlannedChunk[] = [];
  for (const [at, chunk] of regrouped.entries()) planned.push({ chunk, blocks: flat[at]!.blocks ?? (await options.gather(chunk)) });
  return planned;
}

type Fits = (segments: readonly ChunkSegment[]) => Promise<{ ok: boolean; blocks: ContextBlock[] }>;

async function splitChunk(
  chunk: ReviewChunk,
  count: number,
  options: ScopeSplitOptions,
  provisional: (segments: readonly ChunkSegment[]) => ReviewChunk,
  fits: Fits,
): Promise<Group[]> {
  const heading = countTokens(contextHeading(options.commit));
  // The room of a part is the room of an empty one less its diff.
  const emptyRoom = options.room(provisional([]), count);
  const scopeRoom = (diffTokens: number, others: boolean) => {
    const room = emptyRoom - diffTokens;
    const left = room - (options.tools ? toolRoomOf(room) : 0) - heading;
    return others ? Math.floor(left * SCOPES_SHARE) : left;
  };
  const measure = async (segment: ChunkSegment): Promise<Piece[]> => {
    const blocks = await options.gather(provisional([segment]));
    const scopes = blocks.filter((block) => block.kind === 'scope');
    const scopeTokens = scopes.length === 0 ? 0 : fitContext(scopes, Number.MAX_SAFE_INTEGER, options.commit).stats.tokens - heading;
    const others = scopes.length < blocks.length;
    const piece = { segment, scopeTokens, others, fitsAlone: scopeTokens <= scopeRoom(segment.tokens, others) };
    if (piece.fitsAlone) return [piece];
    const smaller = segment.slices.length > 1 ? slicesApart(segment) : halvesOf(segment);
    if (!smaller) return [piece];
    return (await Promise.all(smaller.map(measure))).flat();
  };
  const pieces = (await Promise.all(chunk.segments.map(measure))).flat();
  // Next-fit by the pieces' sums.
  const packed: Piece[][] = [];
  let current: Piece[] = [];
  let diff = 0;
  let scopes = 0;
  let others = false;
  for (const piece of pieces) {
    const fitsJoined = current.length > 0 && scopes + piece.scopeTokens <= scopeRoom(diff + piece.segment.tokens, others || piece.others);
    if (!fitsJoined && current.length > 0) {
      packed.push(current);
      current = [];
      diff = scopes = 0;
      others = false;
    }
    current.push(piece);
    diff += piece.segment.tokens;
    scopes += piece.scopeTokens;
    others ||= piece.others;
  }
  if (current.length > 0) packed.push(current);
  // Each part checked as its prompt will be; the sums are close, not exact.
  const parts: Group[] = [];
  for (const part of packed) {
    const segments = part.map((piece) => piece.segment);
    const checked = await fits(segments);
    if (checked.ok || part.length === 1) parts.push({ segments, blocks: checked.blocks });
    else parts.push(...(await packChecked(segments, fits)));
  }
  return mergeNeighbours(parts, fits);
}

/**
 * Neighbouring parts joined while the joined part still fits: the sums count a scope shared by
 * pieces (the function around two hunks, a test file's outer callback) once per piece.
 */
async function mergeNeighbours(parts: readonly Group[], fits: Fits): Promise<Group[]> {
  const merged: Group[] = [];
  for (const part of parts) {
    const last = merged.at(-1);
    const tried = last ? await fits([...last.segments, ...part.segments]) : undefined;
    if (last && tried?.ok) merged[merged.length - 1] = { segments: [...last.segments, ...part.segments], blocks: tried.blocks };
    else merged.push(part);
  }
  return merged;
}

/** Next-fit in order with the prompt's own check: the slow path for a part whose sums misled. */
async function packChecked(pieces: readonly ChunkSegment[], fits: Fits): Promise<Group[]> {
  const parts: Group[] = [];
  let current: Group | null = null;
  for (const piece of pieces) {
    if (current) {
      const joined: ChunkSegment[] = [...current.segments, piece];
      const tried = await fits(joined);
      if (tried.ok) {
        current = { segments: joined, blocks: tried.blocks };
        continue;
      }
      parts.push(current);
    }
    current = { segments: [piece], blocks: (await fits([piece])).blocks };
  }
  if (current) parts.push(current);
  return parts;
}
