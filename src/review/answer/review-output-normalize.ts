/**
 * Where models commonly deviate from the review JSON, and how each deviation is read. Runs before
 * validation (`z.preprocess`), so the JSON schema the model is given stays strict while its answer
 * is read leniently. Nothing here invents a location: a finding without a file or a line fails
 * validation and is dropped.
 */

import { RISKS, SEVERITIES, type Risk, type Severity } from '../../domain/findings.js';

export { RISKS, SEVERITIES, type Risk, type Severity };

/** An unrated finding: passes the default threshold (50), not a stricter one. */
export const UNRATED_CONFIDENCE = 50;

type Entries = Record<string, unknown>;

export const isRecord = (value: unknown): value is Entries => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The first of several spellings models use for one field (`endLine`, `end_line`, …). */
function pick(record: Entries, names: readonly string[]): unknown {
  for (const name of names) if (record[name] !== undefined && record[name] !== null) return record[name];
  return undefined;
}

function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim();
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/** 42, "42", "L42", "42-48", "42:48", "lines 42–48": the first number, and the second if any. */
export function lineRange(value: unknown): { start: number; end?: number } | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? { start: Math.trunc(value) } : undefined;
  if (Array.isArray(value)) return lineRange(value.length === 0 ? undefined : `${String(value[0])}-${String(value.at(-1))}`);
  if (typeof value !== 'string') return undefined;
  const match = /(\d+)(?:\s*(?:-|–|—|:|\.\.|to)\s*L?(\d+))?/i.exec(value);
  if (!match) return undefined;
  return match[2] === undefined ? { start: Number(match[1]) } : { start: Number(match[1]), end: Number(match[2]) };
}

export function toNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const match = /-?\d+(?:\.\d+)?/.exec(value);
  return match ? Number(match[0]) : undefined;
}

const SEVERITY_WORDS: Record<string, Severity> = {
  critical: 'CRITICAL',
  blocker: 'CRITICAL',
  p0: 'CRITICAL',
  major: 'MAJOR',
  high: 'MAJOR',
  error: 'MAJOR',
  warning: 'MAJOR',
  p1: 'MAJOR',
  minor: 'MINOR',
  medium: 'MINOR',
  low: 'MINOR',
  suggestion: 'MINOR',
  nit: 'MINOR',
  nitpick: 'MINOR',
  p2: 'MINOR',
  info: 'INFO',
  informational: 'INFO',
  note: 'INFO',
  p3: 'INFO',
};

/** Severity in any case, or a common synonym; an unknown word stays as is and fails validation. */
export function severity(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  return SEVERITY_WORDS[value.trim().toLowerCase()] ?? value;
}

const RISK_WORDS: Record<string, Risk> = {
  low: 'low',
  none: 'low',
  minimal: 'low',
  minor: 'low',
  medium: 'medium',
  moderate: 'medium',
  high: 'high',
  major: 'high',
  critical: 'critical',
  severe: 'critical',
  blocker: 'critical',
};

export function risk(value: unknown): Risk | undefined {
  return typeof value === 'string' ? RISK_WORDS[value.trim().toLowerCase()] : undefined;
}

/** When the model states no risk: the worst severity among its findings. */
export function riskFromSeverities(severities: readonly unknown[]): Risk {
  if (severities.includes('CRITICAL')) return 'critical';
  if (severities.includes('MAJOR')) return 'high';
  if (severities.includes('MINOR')) return 'medium';
  return 'low';
}

/**
 * A finding's confidence on the 0–100 scale. `fractionScale` is decided over the whole answer (all
 * values ≤ 1 means 0–1 was used, so 1 is 100); alone, a fraction below 1 is read as 0–1.
 */
export function confidence(value: unknown, fractionScale: boolean): number {
  const number = toNumber(value);
  if (number === undefined) return UNRATED_CONFIDENCE;
  const scaled = fractionScale || (number > 0 && number < 1) ? number * 100 : number;
  return Math.min(100, Math.max(0, Math.round(scaled)));
}

/** A review-level confidence on the 0–1 scale (85 or "85%" read as 0.85); null when absent. */
export function unitConfidence(value: unknown): number | null {
  const number = toNumber(value);
  if (number === undefined) return null;
  const unit = number > 1 ? number / 100 : number;
  return Math.min(1, Math.max(0, unit));
}

export function commentEntries(value: Entries): unknown[] {
  const list = pick(value, ['comments', 'findings', 'issues']);
  if (Array.isArray(list)) return list;
  return isRecord(list) ? [list] : [];
}

/** True when every stated finding confidence is at most 1: the model used the 0–1 scale. */
export function usesFractionScale(comments: readonly unknown[]): boolean {
  const values = comments.flatMap((comment) => (isRecord(comment) ? [toNumber(comment.confidence)] : [])).filter((value) => value !== undefined);
  return values.length > 0 && values.every((value) => value <= 1);
}

export function normalizeComment(value: unknown, fractionScale = false): unknown {
  if (!isRecord(value)) return value;
  const range = lineRange(pick(value, ['line', 'startLine', 'start_line', 'lineNumber', 'line_number', 'lines']));
  const end = lineRange(pick(value, ['endLine', 'end_line', 'lineEnd', 'line_end']))?.start ?? range?.end;
  const line = range?.start;
  const body = text(pick(value, ['comment', 'body', 'message', 'description', 'details', 'explanation']));
  const title = text(pick(value, ['title', 'summary', 'headline', 'issue'])) || (body ? firstSentence(body) : undefined);
  return {
    file: text(pick(value, ['file', 'path', 'filename', 'filePath', 'file_path'])),
    line,
    endLine: line === undefined ? undefined : Math.max(line, end ?? line),
    severity: severity(pick(value, ['severity', 'level', 'priority'])),
    confidence: confidence(pick(value, ['confidence', 'confidenceScore', 'confidence_score']), fractionScale),
    title,
    comment: body || title,
    failureScenario: text(pick(value, ['failureScenario', 'failure_scenario', 'scenario', 'impact'])) ?? '',
    suggestedFix: text(pick(value, ['suggestedFix', 'suggested_fix', 'suggestion', 'fix', 'recommendation'])) ?? '',
    // Only an explicit replacement: prose (suggestedFix) is never promoted to code that GitHub would apply.
    replacement: typeof value.replacement === 'string' && value.replacement.trim() !== '' ? value.replacement.replace(/\n$/, '') : null,
  };
}

function firstSentence(body: string): string {
  const sentence = /^(.+?[.!?])(?:\s|$)/.exec(body)?.[1] ?? body;
  return sentence.length > 100 ? `${sentence.slice(0, 97)}…` : sentence;
}

export function normalizeSummary(value: unknown, comments: readonly unknown[]): unknown {
  const summary: Entries = typeof value === 'string' ? { overview: value } : isRecord(value) ? value : {};
  const severities = comments.map((comment) => (isRecord(comment) ? severity(pick(comment, ['severity', 'level', 'priority'])) : undefined));
  return {
    overview: text(pick(summary, ['overview', 'summary', 'description'])) ?? '',
    intent: text(pick(summary, ['intent', 'purpose', 'goal'])) ?? '',
    risk: risk(pick(summary, ['risk', 'riskLevel', 'risk_level'])) ?? riskFromSeverities(severities),
    // Recounted after validation; the model's own count is often off.
    findingsCount: comments.length,
  };
}

const REVIEW_KEYS = ['summary', 'overview', 'comments', 'findings', 'issues'];

export function normalizeReview(value: unknown): unknown {
  const record: Entries | undefined = Array.isArray(value) ? { comments: value } : isRecord(value) ? value : undefined;
  // Some other JSON (an error object, a tool call): not an empty review. Left as is, it fails validation.
  if (!record || !REVIEW_KEYS.some((key) => key in record)) return value;
  const comments = commentEntries(record);
  const fractionScale = usesFractionScale(comments);
  const scores = isRecord(record.confidence) ? record.confidence : {};
  const fixPrompt = text(pick(record, ['agenticFixPrompt', 'agentic_fix_prompt', 'fixPrompt']));
  return {
    summary: normalizeSummary(pick(record, ['summary', 'overview']), comments),
    comments: comments.map((comment) => normalizeComment(comment, fractionScale)),
    confidence: {
      overall: unitConfidence(isRecord(record.confidence) ? pick(scores, ['overall', 'total']) : record.confidence),
      performance: unitConfidence(scores.performance),
      security: unitConfidence(scores.security),
    },
    agenticFixPrompt: fixPrompt ? fixPrompt : null,
  };
}
