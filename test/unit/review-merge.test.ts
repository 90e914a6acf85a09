import { describe, expect, it } from 'vitest';
import { parseUnifiedDiff } from '../../src/review/prepare/diff/parse-unified-diff.js';
import { finalizeReview, mergeReviews } from '../../src/review/findings/merge-reviews.js';
import type { ReviewComment, ReviewOutput } from '../../src/review/answer/review-output.js';
import { scoreReview } from '../../src/review/findings/score.js';

const files = parseUnifiedDiff(
  ['diff --git a/a.ts b/a.ts', 'new file mode 100644', '--- /dev/null', '+++ b/a.ts', '@@ -0,0 +1,20 @@', ...Array.from({ length: 20 }, (_, index) => `+line ${index + 1}`), ''].join(
    '\n',
  ),
);

const comment = (line: number, title: string, severity: ReviewComment['severity'] = 'MAJOR'): ReviewComment => ({
  file: 'a.ts',
  line,
  endLine: line,
  severity,
  confidence: 80,
  title,
  comment: title,
  failureScenario: '',
  suggestedFix: '',
  replacement: null,
});

const review = (overrides: Partial<ReviewOutput>): ReviewOutput => ({
  summary: { overview: 'Adds a.ts.', intent: 'Feature.', risk: 'low', findingsCount: 0 },
  comments: [],
  confidence: { overall: 0.9, performance: null, security: 0.8 },
  agenticFixPrompt: null,
  ...overrides,
});

describe('merging chunk reviews', () => {
  it('joins distinct overviews, takes the highest risk and the lowest confidences', () => {
    const merged = mergeReviews([
      { review: review({ summary: { overview: 'Part one.', intent: '', risk: 'medium', findingsCount: 1 }, comments: [comment(3, 'Bug A')], confidence: { overall: 0.6, performance: 0.5, security: null } }), changedLines: 300 },
      { review: review({ summary: { overview: 'Part two.', intent: 'Speed up imports.', risk: 'high', findingsCount: 0 }, agenticFixPrompt: 'Fix a.ts line 3.' }), changedLines: 100 },
      { review: review({ summary: { overview: 'Part two.', intent: 'x', risk: 'low', findingsCount: 0 } }), changedLines: 0 },
    ]);
    expect(merged.summary).toEqual({ overview: 'Part one.\n\nPart two.', intent: 'Speed up imports.', risk: 'high', findingsCount: 1 });
    expect(merged.confidence).toEqual({ overall: 0.6, performance: 0.5, security: 0.8 });
    expect(merged.agenticFixPrompt).toBe('Fix a.ts line 3.');
  });

  it('finalizes: merged findings filtered once across chunks, findingsCount matching what is kept', () => {
    const final = finalizeReview(
      [
        { review: review({ comments: [comment(3, 'Missing await on save'), comment(40, 'Outside')] }), changedLines: 10 },
        { review: review({ comments: [comment(3, 'Missing await on save()', 'CRITICAL'), comment(9, 'Low', 'MINOR')] }), changedLines: 10 },
      ],
      files,
    );
    expect(final.review.comments.map((entry) => [entry.line, entry.severity])).toEqual([
      [3, 'CRITICAL'],
      [9, 'MINOR'],
    ]);
    expect(final.review.summary.findingsCount).toBe(2);
    expect(final.counts).toMatchObject({ outsideDiff: 1, duplicate: 1 });
    expect(scoreReview(final.review)).toBe(90);
  });
});
