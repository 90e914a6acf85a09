import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseReviewOutput, reviewCommentSchema, reviewOutputSchema, type ReviewParseResult } from '../../src/review/answer/review-output.js';

const comment = {
  file: 'src/user.ts',
  line: 4,
  endLine: 5,
  severity: 'CRITICAL',
  confidence: 92,
  title: 'SQL injection in loadUser',
  comment: 'The id is concatenated into the query.',
  failureScenario: "id = \"1' OR '1'='1\" returns every user.",
  suggestedFix: 'Use a parameter: db.query("… where id = $1", [id]).',
  replacement: null,
};

const review = {
  summary: { overview: 'Loads users by id.', intent: 'Fix lookups.', risk: 'high', findingsCount: 1 },
  comments: [comment],
  confidence: { overall: 0.8, performance: 0.9, security: 0.7 },
  agenticFixPrompt: 'In src/user.ts line 4, use a parameterized query.',
};

function ok(result: ReviewParseResult) {
  if (!result.ok) throw new Error(`expected a review, got: ${result.reason}`);
  return result;
}

describe('review output schema', () => {
  it('gives the AI SDK a strict JSON schema (every field required, enums, no minLength)', () => {
    const schema = z.toJSONSchema(reviewOutputSchema, { target: 'draft-7', io: 'input', reused: 'inline' }) as unknown as {
      required: string[];
      properties: { comments: { items: { required: string[]; properties: Record<string, { enum?: string[] }> } } };
    };
    expect(schema.required).toEqual(['summary', 'comments', 'confidence', 'agenticFixPrompt']);
    const item = schema.properties.comments.items;
    expect(item.required).toEqual(['file', 'line', 'endLine', 'severity', 'confidence', 'title', 'comment', 'failureScenario', 'suggestedFix', 'replacement']);
    expect(item.properties.severity!.enum).toEqual(['CRITICAL', 'MAJOR', 'MINOR', 'INFO']);
    expect(JSON.stringify(schema)).not.toContain('minLength');
  });

  it('keeps an exact replacement, and never takes prose for one', () => {
    const withReplacement = { ...review, comments: [{ ...comment, replacement: '  return db.query("select * from users where id = $1", [id]);\n' }] };
    expect(ok(parseReviewOutput(JSON.stringify(withReplacement))).review.comments[0]!.replacement).toBe('  return db.query("select * from users where id = $1", [id]);');
    const proseOnly = { ...review, comments: [{ ...comment, replacement: undefined, suggestion: 'Use a parameter.' }] };
    expect(ok(parseReviewOutput(JSON.stringify(proseOnly))).review.comments[0]!.replacement).toBeNull();
  });

  it('accepts a well-formed review unchanged', () => {
    const result = ok(parseReviewOutput(JSON.stringify(review)));
    expect(result.review).toEqual(review);
    expect(result).toMatchObject({ droppedComments: [], repaired: false });
  });

  it('reads JSON in a ```json fence after prose, and after a <think> block', () => {
    const fenced = `Here is my review:\n\n\`\`\`json\n${JSON.stringify(review, null, 2)}\n\`\`\`\nLet me know if you need more.`;
    expect(ok(parseReviewOutput(fenced)).review).toEqual(review);
    const thinking = `<think>The query {is} concatenated…</think>\n${JSON.stringify(review)}`;
    expect(ok(parseReviewOutput(thinking)).review).toEqual(review);
  });

  it('repairs slightly broken JSON: trailing commas, single quotes, comments, an answer cut short', () => {
    const broken = `{
      // the review
      'summary': {'overview': 'Loads users.', 'intent': 'Fix lookups.', 'risk': 'high', 'findingsCount': 1,},
      'comments': [{"file": "src/user.ts", "line": 4, "endLine": 5, "severity": "MAJOR", "confidence": 80, "title": "Unchecked null", "comment": "row may be undefined", "failureScenario": "", "suggestedFix": "",}],
      "confidence": {"overall": 0.7, "performance": 0.8, "security": 0.9},
      "agenticFixPrompt": null,
    }`;
    const repaired = ok(parseReviewOutput(broken));
    expect(repaired.repaired).toBe(true);
    expect(repaired.review.comments).toHaveLength(1);
    const cut = JSON.stringify(review).slice(0, -40);
    const truncated = ok(parseReviewOutput(cut));
    expect(truncated.review.comments[0]!.title).toBe('SQL injection in loadUser');
  });

  it('is lenient where models deviate: strings for numbers, lower-case severity and risk, missing endLine, 0-1 confidence', () => {
    const result = ok(
      parseReviewOutput({
        summary: { overview: 'x', intent: 'y', risk: 'Medium', findingsCount: '7' },
        comments: [
          { file: './src/a.ts', line: '12', severity: 'major', confidence: 0.85, title: 'Off by one', comment: 'c', failureScenario: 'f', suggestedFix: 's' },
          { file: 'src/b.ts', line: 'L30-L34', severity: 'minor', confidence: 1, title: 'Leak', comment: 'c' },
        ],
        confidence: { overall: '85%', performance: 0.5, security: 90 },
        agenticFixPrompt: '',
      }),
    );
    expect(result.review.summary).toEqual({ overview: 'x', intent: 'y', risk: 'medium', findingsCount: 2 });
    expect(result.review.comments.map((entry) => [entry.file, entry.line, entry.endLine, entry.severity, entry.confidence])).toEqual([
      ['./src/a.ts', 12, 12, 'MAJOR', 85],
      ['src/b.ts', 30, 34, 'MINOR', 100],
    ]);
    expect(result.review.comments[1]).toMatchObject({ failureScenario: '', suggestedFix: '' });
    expect(result.review.confidence).toEqual({ overall: 0.85, performance: 0.5, security: 0.9 });
    expect(result.review.agenticFixPrompt).toBeNull();
  });

  it('reads common field aliases and keeps 0-100 confidences as they are', () => {
    const result = ok(
      parseReviewOutput({
        summary: 'A summary as a plain string.',
        findings: [{ path: 'b/src/a.ts', start_line: 3, end_line: 1, severity: 'critical', confidence: '75', message: 'Token is logged. It leaks secrets.', suggestion: 'Redact it.' }],
      }),
    );
    expect(result.review.summary).toEqual({ overview: 'A summary as a plain string.', intent: '', risk: 'critical', findingsCount: 1 });
    expect(result.review.comments[0]).toMatchObject({ file: 'b/src/a.ts', line: 3, endLine: 3, severity: 'CRITICAL', confidence: 75, title: 'Token is logged.', suggestedFix: 'Redact it.' });
    expect(result.review.confidence).toEqual({ overall: null, performance: null, security: null });
  });

  it('drops a finding without a file, a line or a known severity, and says why; never guesses a location', () => {
    const result = ok(
      parseReviewOutput({
        ...review,
        comments: [comment, { ...comment, file: '' }, { ...comment, line: undefined }, { ...comment, line: 'somewhere' }, { ...comment, severity: 'catastrophic' }, { ...comment, title: '', comment: '' }],
      }),
    );
    expect(result.review.comments).toEqual([comment]);
    expect(result.review.summary.findingsCount).toBe(1);
    expect(result.droppedComments.map((dropped) => dropped.index)).toEqual([1, 2, 3, 4, 5]);
    expect(result.droppedComments[0]!.reason).toContain('file');
    expect(result.droppedComments[1]!.reason).toContain('line');
    expect(result.droppedComments[3]!.reason).toContain('severity');
  });

  it('fails with a clear reason when there is no review to read', () => {
    expect(parseReviewOutput('')).toEqual({ ok: false, reason: 'the answer is empty' });
    expect(parseReviewOutput('I could not review this diff, sorry.')).toEqual({ ok: false, reason: 'the answer contains no JSON object' });
    expect(parseReviewOutput('"just a string"')).toMatchObject({ ok: false, reason: expect.stringContaining('contains no JSON object') });
    expect(parseReviewOutput(42)).toMatchObject({ ok: false, reason: expect.stringContaining('does not match the schema') });
    // Some other JSON is not an empty review.
    expect(parseReviewOutput('{"error": "rate limited"}')).toMatchObject({ ok: false, reason: expect.stringContaining('summary') });
  });

  it('validates a single finding with the comment schema too', () => {
    expect(reviewCommentSchema.parse({ ...comment, severity: 'Info', confidence: 0.4 })).toMatchObject({ severity: 'INFO', confidence: 40 });
    expect(reviewCommentSchema.safeParse({ ...comment, file: undefined }).success).toBe(false);
  });
});
