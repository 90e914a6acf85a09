import type { ScorableReview, SeverityCounts } from '../../domain/findings.js';

/** Dashboard counts: CRITICAL is critical, MAJOR a warning, MINOR and INFO suggestions (any case). */
export function countBySeverity(comments: ScorableReview['comments']): SeverityCounts {
  const counts: SeverityCounts = { critical: 0, warning: 0, suggestion: 0, total: 0 };
  for (const comment of comments ?? []) {
    const severity = typeof comment.severity === 'string' ? comment.severity.toUpperCase() : '';
    if (severity === 'CRITICAL') counts.critical++;
    else if (severity === 'MAJOR') counts.warning++;
    else counts.suggestion++;
    counts.total++;
  }
  return counts;
}

/**
 * The dashboard score, by the API's rules in order:
 * 1. `confidence.overall` present (a finite number): that value × 100, or the value itself when it
 *    is greater than 1 (older reviews stored 0–100);
 * 2. else no findings: 98;
 * 3. else 100 − 15 per critical − 5 per warning − 2 per suggestion, limited to 50..99.
 * Rounded to two decimals so 0.87 gives 87, not 87.00000000000001.
 */
export function scoreReview(review: ScorableReview): number {
  const overall = review.confidence?.overall;
  if (typeof overall === 'number' && Number.isFinite(overall)) return round2(overall > 1 ? overall : overall * 100);
  const counts = countBySeverity(review.comments);
  if (counts.total === 0) return 98;
  const score = 100 - 15 * counts.critical - 5 * counts.warning - 2 * counts.suggestion;
  return Math.min(99, Math.max(50, score));
}

const round2 = (value: number) => Math.round(value * 100) / 100;
