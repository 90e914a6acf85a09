import type { Severity } from '../review/answer/review-output.js';
import type { PublishableFinding } from '../domain/findings.js';
import { severityRank } from './stored-review.js';

/** GitHub shows a long review badly, and a flood of comments buries the important ones. */
export const MAX_INLINE_COMMENTS = 25;

export interface HeldBack {
  finding: PublishableFinding;
  reason: string;
}

/**
 * Which new findings go inline: at or above the repository's minimum severity, the most severe and
 * most confident first, at most `limit`. The rest are listed in the summary comment, with why.
 */
export function selectInline(findings: readonly PublishableFinding[], minSeverity: Severity | null, limit = MAX_INLINE_COMMENTS): { inline: PublishableFinding[]; heldBack: HeldBack[] } {
  const heldBack: HeldBack[] = [];
  const eligible: PublishableFinding[] = [];
  for (const finding of findings) {
    if (minSeverity !== null && severityRank(finding.severity) > severityRank(minSeverity)) {
      heldBack.push({ finding, reason: `below ${minSeverity} (inline_min_severity)` });
    } else {
      eligible.push(finding);
    }
  }
  const ordered = [...eligible].sort((a, b) => severityRank(a.severity) - severityRank(b.severity) || b.confidence - a.confidence);
  for (const finding of ordered.slice(limit)) heldBack.push({ finding, reason: `over the limit of ${limit} inline comments` });
  return { inline: ordered.slice(0, limit), heldBack };
}
