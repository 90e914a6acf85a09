/**
 * A finding as every floor speaks of it: its severity and the review's risk, what scoring reads,
 * and a finding a team rejected. The review JSON's full zod schema stays with the reviewer
 * (`review/answer/review-output.ts`), which takes these names from here.
 */

export const SEVERITIES = ['CRITICAL', 'MAJOR', 'MINOR', 'INFO'] as const;
export type Severity = (typeof SEVERITIES)[number];

export const RISKS = ['low', 'medium', 'high', 'critical'] as const;
export type Risk = (typeof RISKS)[number];

/** What scoring reads of a review; a stored `reviewRawJson` of any age fits (hence the loose types). */
export interface ScorableReview {
  comments?: ReadonlyArray<{ severity?: unknown }> | null;
  confidence?: { overall?: unknown } | null;
}

export interface SeverityCounts {
  /** CRITICAL findings. */
  critical: number;
  /** MAJOR findings. */
  warning: number;
  /** MINOR and INFO findings. */
  suggestion: number;
  total: number;
}

/** A finding a team marked `wrong` or `wontfix`: its id and what it said. */
/** What selection reads of a finding; the reviewer's `ReviewComment` fits, and extra fields are kept. */
export interface FindingLike {
  file: string;
  line: number;
  endLine: number;
  severity: Severity;
  confidence: number;
  title: string;
  comment: string;
}

/** A finding as a publisher reads it from a stored review, whatever the host. */
export interface PublishableFinding extends FindingLike {
  id: string;
  failureScenario: string;
  suggestedFix: string;
  replacement: string | null;
}

export interface RejectedFinding {
  findingId: string;
  file: string;
  title: string;
  comment: string;
}
