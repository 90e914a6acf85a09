import { describe, expect, it } from 'vitest';
import { COMMENT_LIMIT, FOLDED_FILE_LIST, inlineCommentBody, summaryCommentBody } from '../../src/publishing/comment-bodies.js';
import { parseCommand } from '../../src/publishing/commands.js';
import { findingIdOf, isSummary } from '../../src/publishing/markers.js';
import { MAX_INLINE_COMMENTS, selectInline } from '../../src/publishing/select-inline.js';
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

describe("the summary's files", () => {
  const stored = (reviewedFiles: string[] | undefined, extra: Record<string, unknown> = {}) =>
    readStoredReview({ summary: { overview: 'x', risk: 'low' }, comments: [finding(), finding({ id: 'b', line: 9, endLine: 9 })], reviewedFiles, ...extra });
  const body = (review: ReturnType<typeof stored>) => summaryCommentBody({ review, heldBack: [], reviewableFiles: 7, sha: 'f'.repeat(40), reviewUrl: 'https://x/pulls/1' });

  it('lists each reviewed file with its findings, in the open up to ten files', () => {
    const text = body(stored(['src/a.ts', 'src/b.ts'], { skippedFiles: [{ path: 'package-lock.json', reason: 'lock file' }] }));
    expect(text).toContain('### Files reviewed\n\n- `src/a.ts`: 2 findings\n- `src/b.ts`: no findings');
    expect(text).toContain('### Skipped files\n\n- `package-lock.json`: lock file');
    expect(text).not.toContain('<details><summary>');
  });

  it('folds more than ten files into a collapsed block', () => {
    const paths = Array.from({ length: FOLDED_FILE_LIST + 1 }, (_, index) => `src/f${index}.ts`);
    const text = body(stored(paths));
    expect(text).toContain(`<details><summary>${FOLDED_FILE_LIST + 1} files reviewed</summary>\n\n- \`src/f0.ts\`: no findings`);
    expect(text.match(/^- `src\/f\d+\.ts`/gm)).toHaveLength(FOLDED_FILE_LIST + 1);
  });

  it("stays within GitHub's limit for a 2,000-file pull request, ending the cut lists with a count and the review's page", () => {
    const paths = Array.from({ length: 2_000 }, (_, index) => `packages/module-${index}/src/some/deeply/nested/folder/component-${index}.tsx`);
    const skippedFiles = paths.map((path) => ({ path: path.replace('.tsx', '.snap'), reason: 'generated' }));
    const text = body(stored(paths, { skippedFiles, agenticFixPrompt: 'Fix it.' }));
    expect(text.length).toBeLessThanOrEqual(COMMENT_LIMIT);
    const listed = text.match(/^- `packages\/[^`]+\.tsx`/gm)!.length;
    expect(listed).toBeGreaterThan(100);
    expect(text).toContain(`- …and ${(2_000 - listed).toLocaleString('en-US')} more files: see [the review's page](https://x/pulls/1).`);
    expect(text).toMatch(/### Skipped files\n\n- `packages\/module-0\/[^`]+\.snap`: generated/);
    // What follows the lists is all there.
    expect(text).toContain('<details><summary>Prompt to fix these findings');
    expect(text).toContain(`Reviewed commit ${'f'.repeat(40)}`);
  });

  it('a review stored before the list was kept shows the count', () => {
    expect(body(stored(undefined))).toContain('### Files reviewed\n\nReviewed 7 files.');
  });

  it('a path holding backticks cannot break out of its code span', () => {
    expect(body(stored(['src/`weird`.ts']))).toContain('- `` src/`weird`.ts ``: no findings');
  });
});
