import type { ContextBlock } from '../../code-context/context-block.js';
import type { ChunkSegment, ReviewChunk } from '../prepare/chunking.js';
import { halvesOf, regroupChunks, slicesApart } from '../prepare/regroup-chunks.js';
import { scopesFit } from './chunk-context.js';
import type { FittedContext } from './context-section.js';

/** A chunk to review, with the context blocks gathered for it. */
export interface PlannedChunk {
  chunk: ReviewChunk;
  blocks: ContextBlock[];
}

export interface ScopeSplitOptions {
  /** The chunk's context blocks, in the order the budget serves them. */
  gather: (chunk: ReviewChunk) => Promise<ContextBlock[]>;
  /** The blocks fitted to the room the chunk's prompt leaves when the diff is in `chunkCount` chunks. */
  fit: (chunk: ReviewChunk, chunkCount: number, blocks: readonly ContextBlock[]) => FittedContext;
  /** At most this many chunks in all: past it, a split chunk's last part allowed holds the rest of it. */
  maxChunks: number;
}

interface Group {
  segments: readonly ChunkSegment[];
  /** Gathered for these segments; unset for a part merged past the cap. */
  blocks?: ContextBlock[];
}

/**
 * The chunks with their context, a chunk split again when its enclosing scopes do not all fit the
 * room its prompt leaves (decisions.md §11: each changed line's whole function beside it). A smaller
 * part leaves more room and needs fewer scopes. Its files are packed in diff order, next-fit, into
 * parts whose scopes fit; a file whose scopes do not fit alone is packed hunk by hunk the same way,
 * and a hunk whose scopes do not fit alone is cut in halves at its middle changed line until they
 * do or a half changes one line. Chunks are numbered again only when one was split; otherwise they
 * come back as given.
 */
export async function splitForScopes(chunks: readonly ReviewChunk[], options: ScopeSplitOptions): Promise<PlannedChunk[]> {
  const maxLineChars = chunks[0]?.maxLineChars ?? 0;
  const provisional = (segments: readonly ChunkSegment[]) => regroupChunks([segments], maxLineChars)[0]!;
  const groups: Group[][] = [];
  let total = chunks.length;
  for (const chunk of chunks) {
    const blocks = await options.gather(chunk);
    const whole = [{ segments: chunk.segments, blocks }];
    if (total >= options.maxChunks || scopesFit(blocks, options.fit(chunk, total, blocks))) {
      groups.push(whole);
      continue;
    }
    // Parts are sized as if the diff had one more chunk than now: the prompt then says which part it is.
    const count = Math.max(2, total + 1);
    const fits = async (segments: readonly ChunkSegment[]) => {
      const candidate = provisional(segments);
      const gathered = await options.gather(candidate);
      return { ok: scopesFit(gathered, options.fit(candidate, count, gathered)), blocks: gathered };
    };
    const parts = await pack(chunk.segments, fits);
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

/** Next-fit in order: a piece joins the current part while the scopes still fit; one that does not fit alone is split into its hunks. */
async function pack(pieces: readonly ChunkSegment[], fits: Fits): Promise<Group[]> {
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
    const alone = await fits([piece]);
    const smaller = alone.ok ? undefined : piece.slices.length > 1 ? slicesApart(piece) : halvesOf(piece);
    if (!smaller) {
      current = { segments: [piece], blocks: alone.blocks };
      continue;
    }
    const split = await pack(smaller, fits);
    parts.push(...split.slice(0, -1));
    current = split.at(-1)!;
  }
  if (current) parts.push(current);
  return parts;
}
