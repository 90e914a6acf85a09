import { styleText } from 'node:util';
import type { Log, ReportingDescriptor, Result } from 'sarif';
import type { PublishableFinding } from '../domain/findings.js';
import { summaryCommentBody } from '../publishing/comment-bodies.js';
import { readStoredReview } from '../publishing/stored-review.js';
import type { FailOn, Format } from './options.js';

export type { FailOn, Format } from './options.js';

/** The `review` of `GET /review/diff/:reviewId` (decisions.md §17). */
export interface DiffReviewResult {
  reviewSummary: string | null;
  score: number;
  reviewRawJSON: unknown;
  skippedFiles: Array<{ path: string; reason: string }>;
  configProblems: Array<{ line: number; message: string }>;
  coverage: { files: number; reviewableFiles: number; lines: number; reviewableLines: number } | null;
}

const RANK = { CRITICAL: 3, MAJOR: 2, MINOR: 1, INFO: 0 } as const;
type Severity = keyof typeof RANK;

/** Whether a finding is at or above `--fail-on` (exit 1). */
export function failsOn(result: DiffReviewResult, failOn: FailOn): boolean {
  if (failOn === 'none') return false;
  const threshold = RANK[failOn.toUpperCase() as Severity];
  return findingsOf(result).some((finding) => RANK[finding.severity] >= threshold);
}

export function findingsOf(result: DiffReviewResult): PublishableFinding[] {
  return readStoredReview(result.reviewRawJSON).findings;
}

export interface RenderContext {
  /** Colour on a terminal unless `NO_COLOR` (https://no-color.org). */
  color: boolean;
  /** The service's page of the review (markdown's link); the change's label for text. */
  reviewUrl: string;
  /** The reviewed commit, or what stands for it ("work tree"). */
  revision: string;
  /** The tool's version, for SARIF's driver. */
  version: string;
}

export function render(format: Format, result: DiffReviewResult, context: RenderContext): string {
  switch (format) {
    case 'json':
      return `${JSON.stringify(result, null, 2)}\n`;
    case 'markdown':
      return `${markdown(result, context)}\n`;
    case 'sarif':
      return `${JSON.stringify(sarif(result, context), null, 2)}\n`;
    case 'text':
      return text(result, context);
  }
}

const SEVERITY_STYLE: Record<Severity, Parameters<typeof styleText>[0]> = { CRITICAL: ['bold', 'red'], MAJOR: 'red', MINOR: 'yellow', INFO: 'cyan' };

/** Findings by file, each starting with its `path:line`, then severity, title, scenario and fix. */
function text(result: DiffReviewResult, { color }: RenderContext): string {
  const paint = (style: Parameters<typeof styleText>[0], value: string) => (color ? styleText(style, value, { validateStream: false }) : value);
  const findings = [...findingsOf(result)].sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line);
  const lines: string[] = [];
  for (const finding of findings) {
    const at = finding.endLine > finding.line ? `${finding.file}:${finding.line}-${finding.endLine}` : `${finding.file}:${finding.line}`;
    lines.push(`${paint('bold', at)} ${paint(SEVERITY_STYLE[finding.severity] ?? 'white', finding.severity)} ${finding.title}`);
    if (finding.failureScenario.trim()) lines.push(indent(`Scenario: ${finding.failureScenario.trim()}`));
    if (finding.suggestedFix.trim()) lines.push(indent(`Fix: ${finding.suggestedFix.trim()}`));
    lines.push('');
  }
  const counts = (['CRITICAL', 'MAJOR', 'MINOR', 'INFO'] as const).map((severity) => [severity, findings.filter((finding) => finding.severity === severity).length] as const).filter(([, count]) => count > 0);
  const tally = findings.length === 0 ? 'No findings' : `${findings.length} finding${findings.length === 1 ? '' : 's'} (${counts.map(([severity, count]) => `${count} ${severity.toLowerCase()}`).join(', ')})`;
  lines.push(`${tally} · score ${result.score}/100`);
  for (const problem of result.configProblems) lines.push(paint('yellow', `.ai-review.yml line ${problem.line}: ${problem.message}`));
  return `${lines.join('\n')}\n`;
}

const indent = (value: string) => value.replace(/^/gm, '    ');

/** The body of the summary comment a pull request's review gets, every finding listed in it. */
function markdown(result: DiffReviewResult, { reviewUrl, revision }: RenderContext): string {
  const review = readStoredReview(result.reviewRawJSON);
  return summaryCommentBody({
    review,
    heldBack: review.findings.map((finding) => ({ finding, reason: 'reviewed before the push' })),
    reviewableFiles: result.coverage?.reviewableFiles ?? null,
    sha: revision,
    reviewUrl,
  });
}

const SARIF_LEVEL: Record<Severity, 'error' | 'warning' | 'note'> = { CRITICAL: 'error', MAJOR: 'error', MINOR: 'warning', INFO: 'note' };

/** SARIF 2.1.0 as GitHub code scanning reads it: one rule per severity (findings carry no category), one result per finding. */
function sarif(result: DiffReviewResult, { version }: RenderContext): Log {
  const findings = findingsOf(result);
  const severities = (['CRITICAL', 'MAJOR', 'MINOR', 'INFO'] as const).filter((severity) => findings.some((finding) => finding.severity === severity));
  return {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'ai-review',
            semanticVersion: version,
            rules: severities.map((severity): ReportingDescriptor => ({
              id: `ai-review/${severity.toLowerCase()}`,
              name: `AiReview${severity[0]}${severity.slice(1).toLowerCase()}`,
              shortDescription: { text: `An AI review finding of severity ${severity}` },
              defaultConfiguration: { level: SARIF_LEVEL[severity] },
            })),
          },
        },
        results: findings.map((finding): Result => ({
          ruleId: `ai-review/${finding.severity.toLowerCase()}`,
          level: SARIF_LEVEL[finding.severity] ?? 'note',
          message: { text: [finding.title, finding.comment, finding.failureScenario && `Scenario: ${finding.failureScenario}`, finding.suggestedFix && `Fix: ${finding.suggestedFix}`].filter(Boolean).join('\n\n') },
          locations: [{ physicalLocation: { artifactLocation: { uri: finding.file, uriBaseId: '%SRCROOT%' }, region: { startLine: finding.line, endLine: finding.endLine } } }],
          partialFingerprints: { 'aiReviewFindingId/v1': finding.id },
        })),
        columnKind: 'utf16CodeUnits',
      },
    ],
  };
}
