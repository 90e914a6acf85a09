import { SEVERITIES, type Severity } from '../review/answer/review-output.js';
import type { PublishableFinding } from '../domain/findings.js';

export interface PublishableReview {
  overview: string;
  intent: string;
  risk: string;
  overall: number | null;
  findings: PublishableFinding[];
  agenticFixPrompt: string | null;
  /** The files this run reviewed, in diff order; null for reviews stored before the list was kept. */
  reviewedFiles: string[] | null;
  skippedFiles: Array<{ path: string; reason: string }>;
  /** From `.ai-review.yml` (decisions.md §10); absent means none. */
  configProblems: Array<{ line: number | null; message: string }>;
  /** Findings below it are not posted inline; null: every severity is. */
  inlineMinSeverity: Severity | null;
  reviewedCommit: string | null;
}

const record = (value: unknown): Record<string, unknown> => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {});
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const int = (value: unknown): number | null => (typeof value === 'number' && Number.isInteger(value) ? value : null);
const severity = (value: unknown): Severity | null => {
  const upper = typeof value === 'string' ? value.toUpperCase() : '';
  return (SEVERITIES as readonly string[]).includes(upper) ? (upper as Severity) : null;
};

/**
 * A stored `reviewRawJson` read tolerantly: reviews of any age, and fields other parts of the
 * service add (`configProblems`, `repositoryConfig`) whether present or not. A finding without an
 * id, a file or a line cannot be placed or tracked and is left out.
 */
export function readStoredReview(raw: unknown): PublishableReview {
  const review = record(raw);
  const summary = record(review.summary);
  const findings: PublishableFinding[] = [];
  for (const item of list(review.comments)) {
    const finding = record(item);
    const line = int(finding.line);
    const id = text(finding.id);
    const file = text(finding.file);
    if (line === null || id === '' || file === '') continue;
    findings.push({
      id,
      file,
      line,
      endLine: Math.max(line, int(finding.endLine) ?? line),
      severity: severity(finding.severity) ?? 'INFO',
      confidence: int(finding.confidence) ?? 0,
      title: text(finding.title),
      comment: text(finding.comment),
      failureScenario: text(finding.failureScenario),
      suggestedFix: text(finding.suggestedFix),
      replacement: typeof finding.replacement === 'string' ? finding.replacement : null,
    });
  }
  const overall = record(review.confidence).overall;
  return {
    overview: text(summary.overview),
    intent: text(summary.intent),
    risk: text(summary.risk) || 'unknown',
    overall: typeof overall === 'number' && Number.isFinite(overall) ? overall : null,
    findings,
    agenticFixPrompt: text(review.agenticFixPrompt) || null,
    reviewedFiles: Array.isArray(review.reviewedFiles) ? review.reviewedFiles.filter((path): path is string => typeof path === 'string') : null,
    skippedFiles: list(review.skippedFiles).flatMap((entry) => {
      const file = record(entry);
      return text(file.path) ? [{ path: text(file.path), reason: text(file.reason) }] : [];
    }),
    configProblems: list(review.configProblems).flatMap((entry) => {
      const problem = record(entry);
      return text(problem.message) ? [{ line: int(problem.line), message: text(problem.message) }] : [];
    }),
    inlineMinSeverity: severity(record(review.repositoryConfig).inlineMinSeverity),
    reviewedCommit: text(review.reviewedCommit) || null,
  };
}

/** CRITICAL first. */
export const severityRank = (value: Severity) => SEVERITIES.indexOf(value);
