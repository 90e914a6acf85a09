import { countBySeverity, scoreReview } from '../review/findings/score.js';
import { addressedMarker, findingMarker, summaryMarker } from './markers.js';
import type { HeldBack } from './select-inline.js';
import type { PublishableFinding, PublishableReview } from './stored-review.js';

/**
 * Text written by the model (or the pull request's author, through it) goes into Markdown that
 * GitHub renders: it must not be able to forge the App's hidden markers or open raw HTML comments.
 */
const safe = (value: string) => value.replaceAll('<!--', '&lt;!--').trim();

/** A fenced block whose fence is longer than any backtick run inside, so the content cannot close it. */
export function fenced(content: string, info = ''): string {
  const longest = Math.max(2, ...[...content.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${info}\n${content.replace(/\n+$/, '')}\n${fence}`;
}

const location = (finding: PublishableFinding) => `${finding.file}:${finding.line === finding.endLine ? finding.line : `${finding.line}-${finding.endLine}`}`;

/**
 * One inline comment: severity and title, the comment, the failure scenario, the suggested fix,
 * and a suggestion block only from an exact replacement (prose is never made into one).
 */
export function inlineCommentBody(finding: PublishableFinding): string {
  const parts = [findingMarker(finding.id), `**${finding.severity}** · ${safe(finding.title)}`, safe(finding.comment)];
  if (finding.failureScenario.trim()) parts.push(`**Failure scenario:** ${safe(finding.failureScenario)}`);
  if (finding.suggestedFix.trim()) parts.push(`**Suggested fix:** ${safe(finding.suggestedFix)}`);
  if (finding.replacement !== null) parts.push(fenced(finding.replacement, 'suggestion'));
  return parts.join('\n\n');
}

export const addressedReplyBody = (findingId: string, sha: string) => `${addressedMarker(findingId)}\nAddressed in ${sha}: this finding is gone from the latest review.`;

export function reviewBody(newCount: number, sha: string): string {
  return `AI review of ${sha.slice(0, 12)}: ${newCount} new finding${newCount === 1 ? '' : 's'} inline. The summary is in the pull request's conversation.`;
}

export interface SummaryInput {
  review: PublishableReview;
  heldBack: HeldBack[];
  reviewableFiles: number | null;
  sha: string;
  reviewUrl: string;
}

/** The one summary comment of a pull request, edited in place on every run. */
export function summaryCommentBody({ review, heldBack, reviewableFiles, sha, reviewUrl }: SummaryInput): string {
  const counts = countBySeverity(review.findings);
  const bySeverity = (severity: string) => review.findings.filter((finding) => finding.severity === severity).length;
  const score = scoreReview({ comments: review.findings, confidence: { overall: review.overall } });
  const lines = [
    summaryMarker(),
    '## AI review',
    '',
    `**Score:** ${score}/100 · **Risk:** ${safe(review.risk)} · **Findings:** ${counts.total} (${bySeverity('CRITICAL')} critical, ${bySeverity('MAJOR')} major, ${bySeverity('MINOR')} minor, ${bySeverity('INFO')} info)`,
  ];
  if (review.overview.trim()) lines.push('', '### Overview', '', safe(review.overview));
  if (review.intent.trim()) lines.push('', '### Intent', '', safe(review.intent));
  if (heldBack.length > 0) {
    lines.push('', '### Findings not posted inline', '');
    for (const { finding, reason } of heldBack) {
      lines.push(`- **${finding.severity}** \`${location(finding)}\` ${safe(finding.title)} (${reason})`);
      if (finding.comment.trim()) lines.push(`  ${safe(finding.comment).replaceAll('\n', '\n  ')}`);
    }
  }
  lines.push('', '### Files', '');
  lines.push(reviewableFiles === null ? 'Files reviewed: see the review page.' : `Reviewed ${reviewableFiles} file${reviewableFiles === 1 ? '' : 's'}.`);
  if (review.skippedFiles.length > 0) {
    lines.push(`Skipped ${review.skippedFiles.length}:`);
    for (const file of review.skippedFiles) lines.push(`- \`${file.path}\`: ${safe(file.reason)}`);
  }
  if (review.configProblems.length > 0) {
    lines.push('', '### Problems in .ai-review.yml', '');
    for (const problem of review.configProblems) lines.push(`- ${problem.line === null ? '' : `line ${problem.line}: `}${safe(problem.message)}`);
  }
  if (review.agenticFixPrompt !== null) {
    lines.push('', '<details><summary>Prompt to fix these findings with an AI coding agent</summary>', '', fenced(review.agenticFixPrompt, 'text'), '', '</details>');
  }
  lines.push('', `Reviewed commit ${sha} · [Open the review](${reviewUrl})`);
  return lines.join('\n');
}
