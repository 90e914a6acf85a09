import { SCOPES_SHARE, type ContextBlock, type ContextBlockKind } from '../../code-context/context-block.js';
import type { ContextStats } from '../../domain/review-content.js';
import { countTokensUpTo, MAX_CHARS_PER_TOKEN } from '../prepare/tokens.js';

export const NO_CONTEXT: ContextStats = { scopes: 0, definitions: 0, callers: 0, tokens: 0 };

/** A block the prompt held, as the review records it for the web page (decisions.md §11's transparency). */
export interface ShownBlock {
  kind: ContextBlockKind;
  path: string;
  startLine: number;
  endLine: number;
  about: string;
  /** Shown with lines left out (a rendering other than the fullest). */
  elided: boolean;
}

export interface FittedContext {
  /** The prompt section, or null when nothing fit (or there was nothing). */
  section: string | null;
  stats: ContextStats;
  shown: ShownBlock[];
}

/**
 * The blocks that fit in `room` tokens, in their order of priority (scopes, definitions, callers).
 * Each scope may take its share of the scopes' part (`scopeCaps`): its fullest rendering within that share, else
 * the next more elided one; a block none of whose renderings fits is dropped whole, and the ones after
 * it still get their chance. The section's own heading is counted, so the result never exceeds `room`.
 */
export function fitContext(blocks: readonly ContextBlock[], room: number, commit: string | null): FittedContext {
  const heading = contextHeading(commit);
  let left = room - countTokensUpTo(heading, room);
  const stats = { ...NO_CONTEXT };
  if (left <= 0 || blocks.length === 0) return { section: null, stats, shown: [] };
  const fullest = new Map<number, number>();
  const caps = scopeCaps(blocks, hasOtherBlocks(blocks) ? Math.floor(left * SCOPES_SHARE) : left, fullest);
  const texts: string[] = [];
  const shown: ShownBlock[] = [];
  let used = 0;
  for (const [position, block] of blocks.entries()) {
    const cap = Math.min(left, caps.get(position) ?? left);
    for (const [rendering, variant] of block.variants.entries()) {
      const text = renderBlock(block, variant);
      // A rendering longer than any count of `cap` tokens is not counted; a scope's fullest one was
      // counted for its share (exactly, when it could fit) and is not counted again.
      if (text.length > cap * MAX_CHARS_PER_TOKEN) continue;
      const counted = rendering === 0 ? fullest.get(position) : undefined;
      const tokens = counted ?? countTokensUpTo(text, cap);
      if (tokens > cap) continue;
      texts.push(text);
      shown.push({ kind: block.kind, path: block.path, startLine: block.startLine, endLine: block.endLine, about: block.label, elided: rendering > 0 });
      left -= tokens;
      used += tokens;
      stats[STAT_OF[block.kind]]++;
      break;
    }
  }
  if (texts.length === 0) return { section: null, stats, shown };
  return { section: `${heading}${texts.join('')}`, stats: { ...stats, tokens: used + countTokensUpTo(heading, room) }, shown };
}

const hasOtherBlocks = (blocks: readonly ContextBlock[]) => blocks.some((block) => block.kind !== 'scope');

/**
 * Each scope's share of the scopes' part, filled like water: the smallest scopes take what they need
 * and leave the rest to the larger ones, instead of every scope getting an equal slice that a short
 * function does not use and a long one cannot fit in.
 */
function scopeCaps(blocks: readonly ContextBlock[], total: number, fullest: Map<number, number>): Map<number, number> {
  const scopes = [...blocks.entries()]
    .filter(([, block]) => block.kind === 'scope')
    .map(([position, block]) => ({ position, need: countTokensUpTo(renderBlock(block, block.variants[0] ?? ''), total) }))
    .sort((a, b) => a.need - b.need);
  // Exact when at most `total` (countTokensUpTo), and a cap is never above `total`.
  for (const { position, need } of scopes) if (need <= total) fullest.set(position, need);
  const caps = new Map<number, number>();
  let remaining = total;
  scopes.forEach((scope, index) => {
    const cap = Math.max(0, Math.min(scope.need, Math.floor(remaining / (scopes.length - index))));
    caps.set(scope.position, cap);
    remaining -= cap;
  });
  return caps;
}

const STAT_OF: Record<ContextBlockKind, 'scopes' | 'definitions' | 'callers'> = { scope: 'scopes', definition: 'definitions', caller: 'callers' };

export function contextHeading(commit: string | null): string {
  const at = commit ? ` at the head commit ${commit.slice(0, 12)}` : '';
  return `# Code around the change (read-only context)\nFrom the repository${at}, numbered as in the file. It is not part of the change: judge the diff with it, but report findings only on lines of the diff.\n`;
}

function renderBlock(block: ContextBlock, variant: string): string {
  return `<context kind="${block.kind}" path=${JSON.stringify(block.path)} lines="${block.startLine}-${block.endLine}" about=${JSON.stringify(block.label)} read-only>\n${variant}</context>\n`;
}

export function addStats(a: ContextStats, b: ContextStats): ContextStats {
  return { scopes: a.scopes + b.scopes, definitions: a.definitions + b.definitions, callers: a.callers + b.callers, tokens: a.tokens + b.tokens };
}
