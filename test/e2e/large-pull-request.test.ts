import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareReview } from '../../src/review/prepare/prepare-review.js';
import { DEFAULT_OUTPUT_RESERVE } from '../../src/review/ask/prompts.js';
import { countTokens } from '../../src/review/prepare/tokens.js';
import { signInWithGitHub } from '../helpers/github-login.js';
import { reviewAnswer, settledReview } from '../helpers/review-fixtures.js';
import { deliverPullRequest, reviewWorld, type ReviewWorld } from '../helpers/review-world.js';
import { generateSyntheticDiff } from '../helpers/synthetic-diff.js';

const CONTEXT = 32_000;

/** No silent truncation: a PR far larger than the model's context is reviewed in full, in parts. */
describe('a 2,000-file, 200,000-line pull request against a 32k-context model', () => {
  let world: ReviewWorld;
  beforeAll(async () => {
    world = await reviewWorld({
      PLATFORM_MODELS: JSON.stringify([{ id: 'small-context', name: 'Small', contextLength: CONTEXT, inputPrice: 0, outputPrice: 0 }]),
      FREE_ALLOWANCE_USD: '100',
    });
    world.model.reply(() => ({ text: reviewAnswer([]) }));
  });
  afterAll(() => world.close());

  it('reviews every reviewable file, in calls that all fit the context', async () => {
    const diff = generateSyntheticDiff({ files: 2_000, changedLines: 200_000 });
    const expected = prepareReview(diff, { tokenBudget: 10_000 });
    const author = await signInWithGitHub(world.t.app, world.github);
    const payload = await deliverPullRequest(world, author, diff);
    const review = await settledReview(world.t.app, author.cookie, payload.pull_request.id, { timeoutMs: 240_000 });

    expect(review.reviewStatus).toBe('completed');
    expect(review.coverage).toEqual(expected.coverage);
    expect(review.coverage!.reviewableFiles).toBeGreaterThan(1_500);

    const calls = world.model.completions();
    expect(calls.length).toBeGreaterThan(50);
    const reviewed = new Set<string>();
    for (const call of calls) {
      const text = call.body.messages.map((message) => (typeof message.content === 'string' ? message.content : JSON.stringify(message.content))).join('\n');
      expect(countTokens(text) + DEFAULT_OUTPUT_RESERVE.focused).toBeLessThanOrEqual(CONTEXT);
      const diffPart = text.slice(text.indexOf('<diff>'), text.indexOf('</diff>'));
      // File headers: `## <path> (<status>)`, `(<status>, continued)` for later parts of a file.
      for (const match of diffPart.matchAll(/^## (.+) \((?:modified|new file|deleted|renamed from [^,)]+)(?:, continued)?\)$/gm)) reviewed.add(match[1]!);
    }
    expect([...reviewed].sort()).toEqual(expected.reviewable.map((file) => file.path).sort());
    expect(review.reviewRawJSON!.summary.overview).toMatch(new RegExp(`reviewed in ${calls.length} parts`));
  }, 300_000);
});
