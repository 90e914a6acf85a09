import type { LineSpan } from '../prepare/diff/line-map.js';

export interface Anchored {
  line: number;
  endLine: number;
  /** The range was moved or clipped. */
  moved: boolean;
}

/**
 * Places a cited range on lines the diff shows (GitHub accepts review comments only there).
 * A start line inside a hunk stays, with the end clipped to that hunk. A start line at most
 * `maxDistance` lines outside a hunk is moved (with its end, as one block) onto the nearest shown
 * line: models miscount by a line or two. Anything farther is not in the diff: null.
 */
export function anchorRange(spans: readonly LineSpan[], line: number, endLine: number, maxDistance: number): Anchored | null {
  let best: { span: LineSpan; target: number; distance: number } | undefined;
  for (const span of spans) {
    const target = Math.min(span.end, Math.max(span.start, line));
    const distance = Math.abs(target - line);
    if (!best || distance < best.distance) best = { span, target, distance };
    if (distance === 0) break;
  }
  if (!best || best.distance > maxDistance) return null;
  const start = best.target;
  const end = Math.min(best.span.end, Math.max(start, endLine + (start - line)));
  return { line: start, endLine: end, moved: start !== line || end !== endLine };
}
