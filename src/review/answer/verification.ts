import { z } from 'zod';
import { renderChunk, type ReviewChunk } from '../prepare/chunking.js';
import { DIFF_FORMAT_GUIDE } from '../prepare/diff/render-for-model.js';
import type { FindingLike } from '../findings/select-findings.js';
import { decodeAnswer } from './model-json.js';
import type { BuiltPrompt, PromptSettings } from '../ask/prompts.js';
import { UNTRUSTED_INPUT_NOTICE, VERIFICATION_OUTPUT_INSTRUCTIONS, VERIFICATION_PROMPT } from '../ask/prompt-texts.js';
import { isRecord, lineRange, severity, toNumber } from './review-output-normalize.js';
import { SEVERITIES } from './review-output.js';

export const VERDICTS = ['confirmed', 'rejected'] as const;

const VERDICT_WORDS: Record<string, (typeof VERDICTS)[number]> = {
  confirmed: 'confirmed',
  confirm: 'confirmed',
  valid: 'confirmed',
  true: 'confirmed',
  keep: 'confirmed',
  rejected: 'rejected',
  reject: 'rejected',
  invalid: 'rejected',
  false: 'rejected',
  drop: 'rejected',
  'false positive': 'rejected',
};

const verdictObject = z.object({
  id: z.number().int().min(1).describe('The finding number: [F3] is 3.'),
  verdict: z.enum(VERDICTS),
  reason: z.string().describe('One sentence citing the code.'),
  line: z.number().int().min(1).nullable().describe('Corrected first new-file line, or null.'),
  endLine: z.number().int().min(1).nullable().describe('Corrected last new-file line, or null.'),
  severity: z.enum(SEVERITIES).nullable().describe('Corrected severity, or null.'),
});

const verdictSchema = z.preprocess((value) => {
  if (!isRecord(value)) return value;
  const verdict = typeof value.verdict === 'string' ? (VERDICT_WORDS[value.verdict.trim().toLowerCase()] ?? value.verdict) : value.verdict;
  const range = lineRange(value.line);
  return {
    id: toNumber(value.id),
    verdict: typeof value.verdict === 'boolean' ? (value.verdict ? 'confirmed' : 'rejected') : verdict,
    reason: typeof value.reason === 'string' ? value.reason : '',
    line: range?.start ?? null,
    endLine: lineRange(value.endLine)?.start ?? range?.end ?? null,
    // A correction that cannot be read is no correction: the verdict itself still counts.
    severity: SEVERITIES.find((known) => known === severity(value.severity)) ?? null,
  };
}, verdictObject);

/** The verification answer; for the AI SDK as is, like `reviewOutputSchema`. Unreadable verdicts are dropped. */
export const verificationOutputSchema = z.preprocess(
  (value) => {
    const verdicts = Array.isArray(value) ? value : isRecord(value) ? value.verdicts : undefined;
    return { verdicts: Array.isArray(verdicts) ? verdicts.filter((verdict) => verdictSchema.safeParse(verdict).success) : verdicts };
  },
  z.object({ verdicts: z.array(verdictSchema) }),
);

export type VerificationOutput = z.output<typeof verificationOutputSchema>;

export function parseVerificationOutput(raw: unknown): { ok: true; verification: VerificationOutput } | { ok: false; reason: string } {
  const decoded = decodeAnswer(raw);
  if (!decoded.ok) return decoded;
  const parsed = verificationOutputSchema.safeParse(decoded.value);
  return parsed.success ? { ok: true, verification: parsed.data } : { ok: false, reason: 'the verification does not match the schema' };
}

export interface VerificationInput<T extends FindingLike> {
  findings: readonly T[];
  /** The chunk the findings came from: the verifier reads the same diff. */
  chunk: ReviewChunk;
  /** The read-only code around the chunk (`fitContext`), fitted to what this prompt leaves. */
  codeContext?: string | null;
  settings?: PromptSettings | null;
}

/** The deep mode's second pass over one chunk's findings (after `selectFindings`, so they are anchored). */
export function buildVerificationPrompt<T extends FindingLike & { failureScenario?: string }>(input: VerificationInput<T>): BuiltPrompt {
  const system = [input.settings?.systemPrompt?.trim(), VERIFICATION_PROMPT].filter(Boolean).join('\n\n');
  const findings = input.findings.map(
    (finding, index) =>
      `[F${index + 1}] ${finding.file} lines ${finding.line}-${finding.endLine}, ${finding.severity}, confidence ${finding.confidence}: ${finding.title}\n${finding.comment}` +
      (finding.failureScenario ? `\nFailure scenario: ${finding.failureScenario}` : ''),
  );
  const sections = [
    UNTRUSTED_INPUT_NOTICE,
    `# Diff\n${DIFF_FORMAT_GUIDE}\n\n<diff>\n${renderChunk(input.chunk)}</diff>`,
    ...(input.codeContext ? [input.codeContext.trimEnd()] : []),
    `# Findings to verify\n${findings.join('\n\n')}`,
    `# How to answer\n${VERIFICATION_OUTPUT_INSTRUCTIONS}`,
  ];
  return { system, prompt: sections.join('\n\n') };
}

/** A finding after the deep mode's verification: `verified: false` when no verdict reached it. */
export type Verified<T> = T & { verified: boolean };

export interface VerifiedFindings<T> {
  /** Confirmed findings (`verified: true`) and those the verifier gave no verdict for (`verified: false`). */
  findings: Array<Verified<T>>;
  rejected: number;
  unverified: number;
}

/**
 * Applies the verdicts the verifier gave: a confirmed finding is kept with the corrected lines and
 * severity, a rejected one dropped. A finding it gave no verdict for was paid for and may be real:
 * it is kept as it was, marked unverified. Run `selectFindings` again afterwards: corrected lines
 * are anchored like any other.
 */
export function applyVerification<T extends FindingLike>(findings: readonly T[], verification: VerificationOutput): VerifiedFindings<T> {
  const verdicts = new Map(verification.verdicts.map((verdict) => [verdict.id, verdict]));
  const kept: Array<Verified<T>> = [];
  let rejected = 0;
  let unverified = 0;
  findings.forEach((finding, index) => {
    const verdict = verdicts.get(index + 1);
    if (!verdict) {
      unverified++;
      kept.push({ ...finding, verified: false });
    } else if (verdict.verdict === 'rejected') {
      rejected++;
    } else {
      const line = verdict.line ?? finding.line;
      const endLine = Math.max(line, verdict.endLine ?? (verdict.line === null ? finding.endLine : line));
      kept.push({ ...finding, line, endLine, severity: verdict.severity ?? finding.severity, verified: true });
    }
  });
  return { findings: kept, rejected, unverified };
}

/** The findings of a verification that failed (an answer that cannot be read, a provider that gave up): all kept, unverified. */
export function withoutVerification<T extends FindingLike>(findings: readonly T[]): VerifiedFindings<T> {
  return { findings: findings.map((finding) => ({ ...finding, verified: false })), rejected: 0, unverified: findings.length };
}
