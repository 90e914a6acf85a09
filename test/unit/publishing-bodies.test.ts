import { describe, expect, it } from 'vitest';
import { inlineCommentBody, summaryCommentBody } from '../../src/publishing/comment-bodies.js';
import { parseCommand } from '../../src/publishing/commands.js';
import { findingIdOf, isSummary } from '../../src/publishing/markers.js';
import { MAX_INLINE_COMMENTS, selectInline } from '../../src/publishing/select-inline.js';
import { readStoredReview, type PublishableFinding } from '../../src/publishing/stored-review.js';

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

describe('what the App posts', () => {
  it('an inline comment: marker, severity and title, comment, failure scenario, fix; a suggestion only from an exact replacement', () => {
    const body = inlineCommentBody(finding());
    expect(findingIdOf(body)).toBe('abc123');
    expect(body).toContain('**MAJOR** · Unchecked null');
    expect(body.indexOf('row may be undefined')).toBeLessThan(body.indexOf('**Failure scenario:**'));
    expect(body.indexOf('**Failure scenario:**')).toBeLessThan(body.indexOf('**Suggested fix:**'));
    expect(body).not.toContain('```suggestion');
    const withReplacement = inlineCommentBody(finding({ replacement: '  if (!row) return null;\n  return row.name;' }));
    expect(withReplacement).toContain('```suggestion\n  if (!row) return null;\n  return row.name;\n```');
    // Code holding backticks gets a longer fence, so it cannot close the block.
    expect(inlineCommentBody(finding({ replacement: 'const s = ```;' }))).toContain('````suggestion\nconst s = ```;\n````');
  });

  it("model text cannot forge the App's markers", () => {
    const body = inlineCommentBody(finding({ title: '<!-- ai-review:summary -->', comment: '<!-- ai-review:finding:other -->' }));
    expect(findingIdOf(body)).toBe('abc123');
    expect(body.match(/<!--/g)).toHaveLength(1);
    expect(isSummary(`x\n<!-- ai-review:summary -->`)).toBe(false);
  });

  it('the summary names config problems with their line, findings held back with why, and the reviewed commit', () => {
    const review = readStoredReview({
      summary: { overview: 'Adds a.', intent: 'Because.', risk: 'low' },
      comments: [{ ...finding(), severity: 'INFO' }],
      confidence: { overall: 0.9 },
      agenticFixPrompt: null,
      skippedFiles: [{ path: 'dist/a.js', reason: 'generated' }],
      configProblems: [{ line: 3, message: 'unknown key "reviewz"' }],
      repositoryConfig: { inlineMinSeverity: 'MINOR' },
    });
    const { inline, heldBack } = selectInline(review.findings, review.inlineMinSeverity);
    expect(inline).toEqual([]);
    const body = summaryCommentBody({ review, heldBack, reviewableFiles: 1, sha: 'f'.repeat(40), reviewUrl: 'https://x/pulls/1' });
    expect(isSummary(body)).toBe(true);
    expect(body).toContain('line 3: unknown key "reviewz"');
    expect(body).toContain('`src/a.ts:4-5` Unchecked null (below MINOR (inline_min_severity))');
    expect(body).toContain('`dist/a.js`: generated');
    expect(body).toContain(`Reviewed commit ${'f'.repeat(40)}`);
  });

  it('reads an older review without the new fields as no problems and no minimum', () => {
    const review = readStoredReview({ summary: { overview: 'x' }, comments: [finding()] });
    expect(review).toMatchObject({ configProblems: [], inlineMinSeverity: null, skippedFiles: [] });
    expect(review.findings[0]!.replacement).toBeNull();
  });

  it(`posts at most ${MAX_INLINE_COMMENTS} inline, the most severe and confident first`, () => {
    const many = Array.from({ length: 30 }, (_, index) => finding({ id: `f${index}`, severity: index === 29 ? 'CRITICAL' : 'MINOR', confidence: index }));
    const { inline, heldBack } = selectInline(many, null);
    expect(inline).toHaveLength(MAX_INLINE_COMMENTS);
    expect(inline[0]!.id).toBe('f29');
    expect(inline[1]!.id).toBe('f28');
    expect(heldBack.map((held) => held.finding.id).sort()).toEqual(['f0', 'f1', 'f2', 'f3', 'f4']);
  });

  it('parses commands only at the start of a comment', () => {
    expect(parseCommand('/review', 'bot')).toEqual({ kind: 'review', mode: undefined });
    expect(parseCommand('/review deep', 'bot')).toEqual({ kind: 'review', mode: 'deep' });
    expect(parseCommand('@bot why?', 'bot')).toEqual({ kind: 'ask', question: 'why?' });
    expect(parseCommand('/ask what does it do', 'bot')).toEqual({ kind: 'ask', question: 'what does it do' });
    expect(parseCommand('/help', 'bot')).toEqual({ kind: 'help' });
    expect(parseCommand('please /review this', 'bot')).toBeUndefined();
    expect(parseCommand('@botany is a science', 'bot')).toBeUndefined();
  });
});
