import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatRequest } from '../fakes/fake-openai-chat.js';
import { signInWithGitHub } from '../helpers/github-login.js';
import { CRLF_TO_LF, MINIFIED_BUNDLE, PEM_BUNDLE, PYTHON_INDENTATION, TEXT_MODE_PDF, WHITESPACE_BESIDE_REAL } from '../helpers/input-hygiene-fixtures.js';
import { reviewAnswer, SAMPLE_DIFF, scriptedReviewer, settledReview } from '../helpers/review-fixtures.js';
import { deliverPullRequest, reviewWorld, type ReviewWorld } from '../helpers/review-world.js';

/** The user messages of one request, as text. */
const userText = (messages: ChatRequest['body']['messages']) =>
  messages
    .filter((message) => message.role === 'user')
    .map((message) => (typeof message.content === 'string' ? message.content : JSON.stringify(message.content)))
    .join('\n');

describe('what the model is given, and a deep review whose verification fails', () => {
  let world: ReviewWorld;
  beforeAll(async () => {
    world = await reviewWorld();
    world.model.reply(
      scriptedReviewer([
        { file: 'src/billing/tax.ts', line: 21, severity: 'MAJOR', confidence: 90, title: 'The rate is applied twice' },
        { file: 'src/billing/tax.ts', line: 3, severity: 'MINOR', confidence: 90, title: 'Inconsistent indentation' },
        { file: 'app/jobs.py', line: 12, severity: 'CRITICAL', confidence: 95, title: 'Jobs that are not ready are started' },
      ]),
    );
  });
  afterAll(() => world.close());

  it('sends only real changes, numbered as in the new file, and lists noise and data files as skipped with their reasons', async () => {
    const author = await signInWithGitHub(world.t.app, world.github);
    const diff = [CRLF_TO_LF, WHITESPACE_BESIDE_REAL, PYTHON_INDENTATION, PEM_BUNDLE, MINIFIED_BUNDLE, TEXT_MODE_PDF].join('');
    const before = world.model.completions().length;
    const payload = await deliverPullRequest(world, author, diff, { title: 'Tax rate, line endings and assets' });
    const review = await settledReview(world.t.app, author.cookie, payload.pull_request.id);
    expect(review).toMatchObject({ reviewStatus: 'completed', failureReason: null });

    const calls = world.model.completions().slice(before);
    expect(calls).toHaveLength(1);
    const user = userText(calls[0]!.body.messages);
    const diffShown = user.slice(user.indexOf('<diff>'), user.indexOf('</diff>'));
    expect(diffShown).toContain(
      ['## src/billing/tax.ts (modified)', '@@ -18,5 +18,5 @@ export function tax(total: number, rate: number) {', '18  function applyRate(total: number, rate: number) {'].join('\n'),
    );
    expect(diffShown).toContain('-  return total;\n21 +  return total * rate;\n22  }\n');
    expect(diffShown).toContain('-            job.start()\n12 +        job.start()\n');
    for (const absent of ['Cart.cs', 'negative rate', 'BEGIN CERTIFICATE', 'window.lib0', '%PDF-1.5']) expect(diffShown).not.toContain(absent);
    // The prompt names what it does not show, with the reason.
    expect(user).toContain('- src/Shop/Cart.cs (line endings only)');

    const raw = review.reviewRawJSON as NonNullable<typeof review.reviewRawJSON> & { skippedChanges: unknown };
    expect(raw.skippedFiles).toEqual([
      { path: 'src/Shop/Cart.cs', reason: 'line endings only' },
      { path: 'certs/trust-store.txt', reason: 'certificate bundle' },
      { path: 'website/static/lib/app.js', reason: 'minified' },
      { path: 'design/logo.ai', reason: 'binary content' },
    ]);
    expect(raw.skippedChanges).toEqual([{ path: 'src/billing/tax.ts', reason: 'whitespace only', lines: 8 }]);
    expect(raw.summary.overview).toContain('Skipped 4 files: `src/Shop/Cart.cs`, `certs/trust-store.txt`, `website/static/lib/app.js` and 1 more; each is listed under “Skipped files” with its reason.');
    expect(raw.summary.overview).toContain('Line-ending and whitespace-only changes were not reviewed in `src/billing/tax.ts`.');
    expect(raw.summary.overview).not.toMatch(/skippedFiles|skippedChanges/);
    // The finding on the re-indented lines (not shown) is outside the diff; the others stay where they were cited.
    expect(raw.comments.map((comment) => `${comment.file}:${comment.line}`)).toEqual(['src/billing/tax.ts:21', 'app/jobs.py:12']);
    expect(raw.droppedFindings).toMatchObject({ outsideDiff: 1 });
    expect(review.coverage).toMatchObject({ files: 6, reviewableFiles: 2, reviewableLines: 4 });
  });

  it('a deep review whose verification answer is garbage completes, its first-pass findings kept and marked unverified', async () => {
    const author = await signInWithGitHub(world.t.app, world.github);
    const payload = await deliverPullRequest(world, author, SAMPLE_DIFF);
    const first = await settledReview(world.t.app, author.cookie, payload.pull_request.id);

    const findings = [
      { file: 'src/math.ts', line: 3, severity: 'CRITICAL', confidence: 95, title: 'Off-by-one reads past the end of the array' },
      { file: 'src/greet.ts', line: 2, severity: 'MINOR', confidence: 80, title: 'greet has no return type' },
    ];
    const before = world.model.completions().length;
    world.model.enqueue({ text: reviewAnswer(findings) }, { text: 'Verdicts: looks fine to me, probably.' });
    const started = await world.t.app.inject({ method: 'POST', url: `/review/${first.id}`, headers: { cookie: author.cookie }, payload: { mode: 'deep' } });
    expect(started.statusCode).toBe(200);
    const deep = await settledReview(world.t.app, author.cookie, payload.pull_request.id, { until: (review) => review.mode === 'deep' });

    expect(deep).toMatchObject({ reviewStatus: 'completed', failureReason: null, mode: 'deep', attemptNumber: 1 });
    const calls = world.model.completions().slice(before);
    expect(calls).toHaveLength(2);
    expect(JSON.stringify(calls[1]!.body.messages)).toContain('You verify the findings of a code review');
    expect(deep.reviewRawJSON!.comments).toEqual([
      expect.objectContaining({ file: 'src/math.ts', line: 3, verified: false }),
      expect.objectContaining({ file: 'src/greet.ts', line: 2, verified: false }),
    ]);
    expect(deep.reviewRawJSON!.summary.overview).toMatch(/2 findings were not confirmed by the verification pass and are marked unverified\./);
  });
});
