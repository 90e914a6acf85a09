import { countBySeverity, scoreReview } from '../review/findings/score.js';
import type { BodyDialect } from '../domain/comment-dialect.js';
import { HTML_MARKERS } from './markers.js';
import type { HeldBack } from './select-inline.js';
import type { PublishableFinding } from '../domain/findings.js';
import type { PublishableReview } from './stored-review.js';

/**
 * What a host's comments can hold (decisions.md §8, §16): GitHub and GitLab render HTML, so markers
 * are HTML comments and long parts fold into `<details>`; Bitbucket escapes HTML, so its markers are
 * link reference definitions and its folded parts are headings.
 */
export type { BodyDialect };

/**
 * GitHub refuses a comment over 65,536 characters. JavaScript counts UTF-16 units, never fewer than
 * GitHub's characters, so a body within this many is accepted.
 */
export const COMMENT_LIMIT = 65_536;

/** GitHub's and GitLab's bodies. */
export const HTML_DIALECT: BodyDialect = { markers: HTML_MARKERS, html: true, limit: COMMENT_LIMIT };

/**
 * Text written by the model (or the pull request's author, through it) goes into Markdown that the
 * host renders: it must not be able to forge the service's hidden markers or open raw HTML comments.
 */
const safeText = (value: string, dialect: BodyDialect) => dialect.markers.defuse(HTML_MARKERS.defuse(value)).trim();

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
 * `suggestionInfo` null: the host has no suggestions (Bitbucket), and the replacement is a plain
 * fenced block under a line naming the lines it replaces.
 */
export function inlineCommentBody(finding: PublishableFinding, suggestionInfo: string | null = 'suggestion', dialect: BodyDialect = HTML_DIALECT): string {
  const text = (value: string) => safeText(value, dialect);
  const parts = [dialect.markers.finding(finding.id), `**${finding.severity}** · ${text(finding.title)}`, text(finding.comment)];
  if (finding.failureScenario.trim()) parts.push(`**Failure scenario:** ${text(finding.failureScenario)}`);
  if (finding.suggestedFix.trim()) parts.push(`**Suggested fix:** ${text(finding.suggestedFix)}`);
  // The fence's info string is the host's: GitHub's `suggestion`, GitLab's `suggestion:-N+0`.
  if (finding.replacement !== null && suggestionInfo !== null) parts.push(fenced(finding.replacement, suggestionInfo));
  if (finding.replacement !== null && suggestionInfo === null) parts.push(`**Replacement for ${finding.line === finding.endLine ? `line ${finding.line}` : `lines ${finding.line}-${finding.endLine}`}:**`, fenced(finding.replacement));
  return parts.join('\n\n');
}

export const addressedReplyBody = (findingId: string, sha: string, dialect: BodyDialect = HTML_DIALECT) =>
  `${dialect.markers.addressed(findingId)}\nAddressed in ${sha}: this finding is gone from the latest review.`;

export function reviewBody(newCount: number, sha: string): string {
  return `AI review of ${sha.slice(0, 12)}: ${newCount} new finding${newCount === 1 ? '' : 's'} inline. The summary is in the pull request's conversation.`;
}

export interface SummaryInput {
  review: PublishableReview;
  heldBack: HeldBack[];
  /** The count to show when the stored review does not list its files. */
  reviewableFiles: number | null;
  sha: string;
  reviewUrl: string;
  /** The host's; GitHub's and GitLab's when not given. */
  dialect?: BodyDialect;
}
/** Past this many files, the list is folded into a collapsed block. */
export const FOLDED_FILE_LIST = 10;

const plural = (count: number, word: string) => `${count.toLocaleString('en-US')} ${word}${count === 1 ? '' : 's'}`;
/** An inline code span that a backtick in the text cannot close. */
const code = (text: string) => {
  const fence = '`'.repeat(Math.max(0, ...[...text.matchAll(/`+/g)].map((match) => match[0].length)) + 1);
  return fence.length > 1 ? `${fence} ${text} ${fence}` : `\`${text}\``;
};

/**
 * The one summary comment of a pull request, edited in place on every run. Everything but the file
 * lists is bounded by the review's size; the lists (2,000 files in a large pull request) get the room
 * left under GitHub's limit and end, when cut, with how many more there are and the review's page.
 */
export function summaryCommentBody({ review, heldBack, reviewableFiles, sha, reviewUrl, dialect = HTML_DIALECT }: SummaryInput): string {
  const safe = (value: string) => safeText(value, dialect);
  const counts = countBySeverity(review.findings);
  const bySeverity = (severity: string) => review.findings.filter((finding) => finding.severity === severity).length;
  const score = scoreReview({ comments: review.findings, confidence: { overall: review.overall } });
  const head = [
    dialect.markers.summary(),
    '## AI review',
    '',
    `**Score:** ${score}/100 · **Risk:** ${safe(review.risk)} · **Findings:** ${counts.total} (${bySeverity('CRITICAL')} critical, ${bySeverity('MAJOR')} major, ${bySeverity('MINOR')} minor, ${bySeverity('INFO')} info)`,
  ];
  if (review.overview.trim()) head.push('', '### Overview', '', safe(review.overview));
  if (review.intent.trim()) head.push('', '### Intent', '', safe(review.intent));
  if (heldBack.length > 0) {
    head.push('', '### Findings not posted inline', '');
    for (const { finding, reason } of heldBack) {
      head.push(`- **${finding.severity}** \`${location(finding)}\` ${safe(finding.title)} (${reason})`);
      if (finding.comment.trim()) head.push(`  ${safe(finding.comment).replaceAll('\n', '\n  ')}`);
    }
  }
  const tail: string[] = [];
  if (review.configProblems.length > 0) {
    tail.push('', '### Problems in .ai-review.yml', '');
    for (const problem of review.configProblems) tail.push(`- ${problem.line === null ? '' : `line ${problem.line}: `}${safe(problem.message)}`);
  }
  const footer = ['', `Reviewed commit ${sha} · [Open the review](${reviewUrl})`];
  const fixPrompt =
    review.agenticFixPrompt === null
      ? []
      : dialect.html
        ? ['', '<details><summary>Prompt to fix these findings with an AI coding agent</summary>', '', fenced(review.agenticFixPrompt, 'text'), '', '</details>']
        : ['', '### Prompt to fix these findings with an AI coding agent', '', fenced(review.agenticFixPrompt, 'text')];
  const fixed = (parts: string[][]) => parts.reduce((sum, lines) => sum + lines.join('\n').length + 1, 0);
  // A prompt too long to leave the file lists any room stays on the review's page.
  const prompt = fixed([head, tail, fixPrompt, footer]) + 2_000 > dialect.limit ? ['', `The prompt to fix these findings is on [the review's page](${reviewUrl}).`] : fixPrompt;
  const files = fileSections(review, reviewableFiles, reviewUrl, dialect.limit - fixed([head, tail, prompt, footer]), dialect);
  return [...head, ...files, ...tail, ...prompt, ...footer].join('\n').slice(0, dialect.limit);
}

/** "Files reviewed", each with its count of findings, then "Skipped files" with the reasons, within `room` characters. */
function fileSections(review: PublishableReview, reviewableFiles: number | null, reviewUrl: string, room: number, dialect: BodyDialect): string[] {
  const findingsIn = new Map<string, number>();
  for (const finding of review.findings) findingsIn.set(finding.file, (findingsIn.get(finding.file) ?? 0) + 1);
  const reviewed = (review.reviewedFiles ?? []).map((path) => `- ${code(path)}: ${findingsIn.has(path) ? plural(findingsIn.get(path)!, 'finding') : 'no findings'}`);
  const skipped = review.skippedFiles.map((file) => `- ${code(file.path)}: ${safeText(file.reason, dialect)}`);
  const more = (count: number) => `- …and ${plural(count, 'more file')}: see [the review's page](${reviewUrl}).`;
  // The reviewed files get the room first, leaving the skipped ones a share when both are long.
  const reviewedRoom = skipped.length === 0 ? room : Math.max(room / 2, room - skipped.join('\n').length - 200);
  const lines = ['', '### Files reviewed', ''];
  if (review.reviewedFiles === null) lines.push(reviewableFiles === null ? 'See the review page.' : `Reviewed ${plural(reviewableFiles, 'file')}.`);
  else if (reviewed.length === 0) lines.push('No file needed a review.');
  else {
    const listed = fitLines(reviewed, reviewedRoom - 200, more);
    if (reviewed.length > FOLDED_FILE_LIST && dialect.html) lines.push(`<details><summary>${plural(reviewed.length, 'file')} reviewed</summary>`, '', ...listed, '', '</details>');
    else lines.push(...listed);
  }
  if (skipped.length > 0) {
    const used = lines.join('\n').length;
    lines.push('', '### Skipped files', '', ...fitLines(skipped, room - used - 100, more));
  }
  return lines;
}

/** As many of `lines` as fit in `room` characters, the last one saying how many were left out. */
function fitLines(lines: readonly string[], room: number, more: (count: number) => string): string[] {
  const kept: string[] = [];
  let used = 0;
  for (const [index, line] of lines.entries()) {
    const rest = lines.length - index - 1;
    const reserve = rest > 0 ? more(rest).length + 1 : 0;
    if (used + line.length + 1 + reserve > room) return [...kept, more(lines.length - index)];
    kept.push(line);
    used += line.length + 1;
  }
  return kept;
}
