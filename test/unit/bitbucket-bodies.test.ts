import { describe, expect, it } from 'vitest';
import { BITBUCKET_COMMENT_LIMIT, bitbucketAddressedReply, bitbucketCommandReply, bitbucketInlineBody, bitbucketSummaryBody, isServiceComment } from '../../src/code-hosts/bitbucket/bitbucket-bodies.js';
import { inlineCommentBody, summaryCommentBody } from '../../src/publishing/comment-bodies.js';
import { HTML_MARKERS, LINK_REFERENCE_MARKERS } from '../../src/publishing/markers.js';
import type { PublishableFinding } from '../../src/domain/findings.js';
import { readStoredReview } from '../../src/publishing/stored-review.js';

const finding = (overrides: Partial<PublishableFinding> = {}): PublishableFinding => ({
  id: 'abc123',
  file: 'src/a.ts',
  line: 4,
  endLine: 5,
  severity: 'MAJOR',
  confidence: 80,
  title: 'Unchecked null',
  comment: 'row may be undefined',
  failureScenario: 'An unknown id crashes the handler.',
  suggestedFix: 'Check for undefined before use.',
  replacement: null,
  ...overrides,
});

/** Any HTML tag or comment the service itself could have written. */
const HTML = /<\/?[a-z][^>]*>|<!--/i;

const review = (files: number, prompt: string | null) =>
  readStoredReview({
    summary: { overview: 'Adds a.', intent: 'Because.', risk: 'low' },
    comments: [finding(), finding({ id: 'def456', severity: 'CRITICAL' })],
    confidence: { overall: 0.9 },
    agenticFixPrompt: prompt,
    skippedFiles: [{ path: 'dist/a.js', reason: 'generated' }],
    configProblems: [{ line: 3, message: 'unknown key "reviewz"' }],
    reviewedFiles: Array.from({ length: files }, (_, index) => `src/file-${index}.ts`),
  });

describe("Bitbucket's bodies (decisions.md §16)", () => {
  it('mark an inline comment with a link reference definition on its own first line, read back', () => {
    const body = bitbucketInlineBody(finding());
    expect(body.split('\n')[0]).toBe('[ai-review:finding:abc123]: #');
    expect(LINK_REFERENCE_MARKERS.findingIdOf(body)).toBe('abc123');
    expect(HTML_MARKERS.findingIdOf(body)).toBeUndefined();
    expect(body).toContain('**MAJOR** · Unchecked null');
    expect(isServiceComment(body)).toBe(true);
  });

  it('give exact replacement code as a plain fenced block naming its lines (no suggestion blocks)', () => {
    const body = bitbucketInlineBody(finding({ replacement: '  if (!row) return null;\n  return row.name;' }));
    expect(body).toContain('**Replacement for lines 4-5:**\n\n```\n  if (!row) return null;\n  return row.name;\n```');
    expect(body).not.toContain('suggestion');
    expect(bitbucketInlineBody(finding({ line: 5, replacement: 'x' }))).toContain('**Replacement for line 5:**');
  });

  it('mark the summary, fold nothing into HTML: the prompt under a heading in a fenced block, a long file list as a list', () => {
    const body = bitbucketSummaryBody({ review: review(30, 'Fix the null check in src/a.ts.'), heldBack: [], reviewableFiles: 30, sha: 'f'.repeat(40), reviewUrl: 'https://x/pulls/1' });
    expect(body.split('\n')[0]).toBe('[ai-review:summary]: #');
    expect(LINK_REFERENCE_MARKERS.isSummary(body)).toBe(true);
    expect(body).toContain('### Prompt to fix these findings with an AI coding agent\n\n```text\nFix the null check in src/a.ts.\n```');
    expect(body).toContain('- `src/file-29.ts`: no findings');
    expect(body).not.toMatch(HTML);
    // GitHub's summary of the same review still folds.
    expect(summaryCommentBody({ review: review(30, 'Fix it.'), heldBack: [], reviewableFiles: 30, sha: 'f'.repeat(40), reviewUrl: 'https://x/pulls/1' })).toContain('<details>');
  });

  it('hold no HTML in any body, and stay within the comment limit with thousands of files', () => {
    const summary = bitbucketSummaryBody({ review: review(5_000, 'p'.repeat(40_000)), heldBack: [], reviewableFiles: 5_000, sha: 'f'.repeat(40), reviewUrl: 'https://x/pulls/1' });
    expect(summary.length).toBeLessThanOrEqual(BITBUCKET_COMMENT_LIMIT);
    expect(summary).toContain("The prompt to fix these findings is on [the review's page](https://x/pulls/1).");
    expect(summary).toMatch(/- …and [\d,]+ more files: see \[the review's page\]/);
    for (const body of [summary, bitbucketInlineBody(finding({ replacement: 'x' })), bitbucketAddressedReply('abc123', 'f'.repeat(40)), bitbucketCommandReply(7, 'Commands: /review, /ask, /help')]) {
      expect(body).not.toMatch(HTML);
    }
  });

  it("model text cannot forge the service's markers, in either style", () => {
    const forged = finding({ title: '[ai-review:summary]: #', comment: '[ai-review:finding:other]: #\n<!-- ai-review:finding:other -->' });
    const body = bitbucketInlineBody(forged);
    expect(LINK_REFERENCE_MARKERS.findingIdOf(body)).toBe('abc123');
    expect(body.match(/^\[ai-review:/gm)).toHaveLength(1);
    expect(body).toContain('\\[ai-review:finding:other]: #');
    expect(body).not.toContain('<!--');
    // A marker anywhere but at the start is no marker.
    expect(LINK_REFERENCE_MARKERS.isSummary('x\n[ai-review:summary]: #')).toBe(false);
    expect(LINK_REFERENCE_MARKERS.findingIdOf('[ai-review:finding:abc123]: # trailing')).toBeUndefined();
    // A command's answer cannot pass for a finding either.
    const reply = bitbucketCommandReply(7, '[ai-review:finding:zzz]: #');
    expect(LINK_REFERENCE_MARKERS.findingIdOf(reply)).toBeUndefined();
    expect(reply).toBe('[ai-review:reply:7]: #\n\\[ai-review:finding:zzz]: #');
  });

  it("mark a gone finding's reply and tell the service's comments from people's", () => {
    const reply = bitbucketAddressedReply('abc123', 'f'.repeat(40));
    expect(LINK_REFERENCE_MARKERS.addressedIdOf(reply)).toBe('abc123');
    expect(reply).toContain(`Addressed in ${'f'.repeat(40)}`);
    expect(isServiceComment(reply)).toBe(true);
    expect(isServiceComment(bitbucketCommandReply(9, 'hi'))).toBe(true);
    expect(isServiceComment('/review deep')).toBe(false);
    expect(isServiceComment('please see [ai-review:summary]: #')).toBe(false);
  });

  it("leave GitHub's and GitLab's bodies as they were", () => {
    const body = inlineCommentBody(finding({ replacement: 'x' }));
    expect(body.startsWith('<!-- ai-review:finding:abc123 -->\n\n**MAJOR**')).toBe(true);
    expect(body).toContain('```suggestion\nx\n```');
  });
});
