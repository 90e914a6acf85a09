import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../helpers/accounts.js';
import { bearer, createToken } from '../helpers/api-tokens.js';
import { PRICE_DIFF, PRICE_FILES, PRICE_FINDING, postDiff, settledDiffReview } from '../helpers/diff-reviews.js';
import { scriptedReviewer } from '../helpers/review-fixtures.js';
import { reviewWorld, type ReviewWorld } from '../helpers/review-world.js';

describe('diff reviews: one user’s reviews are invisible to another', () => {
  let world: ReviewWorld;
  beforeAll(async () => {
    world = await reviewWorld();
    world.model.reply(scriptedReviewer([PRICE_FINDING]));
  });
  afterAll(() => world.close());

  const someone = async () => {
    const account = await createAccount(world.t.app, world.t.outbox);
    return bearer((await createToken(world.t.app, account.cookie)).token);
  };

  it('another user’s diff review is 404 everywhere: state, events, verdicts; and absent from their list', async () => {
    const owner = await someone();
    const other = await someone();
    const reviewId = await postDiff(world.t.app, owner, { diff: PRICE_DIFF, repository: 'acme/secret' });
    const { review } = await settledDiffReview(world.t.app, owner, reviewId);
    const findingId = review!.reviewRawJSON.comments[0]!.id;

    const state = await world.t.app.inject({ method: 'GET', url: `/review/diff/${reviewId}`, headers: other });
    expect(state.statusCode).toBe(404);
    expect(state.body).not.toContain('acme/secret');
    expect((await world.t.app.inject({ method: 'GET', url: `/review/diff/${reviewId}/events`, headers: other })).statusCode).toBe(404);
    const verdict = await world.t.app.inject({ method: 'PATCH', url: `/review/diff/${reviewId}/findings/${findingId}`, headers: other, payload: { verdict: 'wrong', note: 'teach them wrong' } });
    expect(verdict.statusCode).toBe(404);
    expect((await world.t.app.inject({ method: 'GET', url: '/review/diff', headers: other })).json()).toEqual({ items: [], nextCursor: null });
    // The owner's finding carries no verdict, and nobody learned anything.
    expect((await settledDiffReview(world.t.app, owner, reviewId)).review!.reviewRawJSON.comments[0]!.verdict).toBeNull();
    expect((await world.t.app.inject({ method: 'GET', url: '/review/learnings', headers: other })).json()).toEqual([]);
    expect((await world.t.app.inject({ method: 'GET', url: '/review/learnings', headers: owner })).json()).toEqual([]);
  });

  it('one user’s learnings never reach another user’s diff review of the same repository', async () => {
    const teacher = await someone();
    const learner = await someone();
    const first = await postDiff(world.t.app, teacher, { diff: PRICE_DIFF, repository: 'acme/shared' });
    const findingId = (await settledDiffReview(world.t.app, teacher, first)).review!.reviewRawJSON.comments[0]!.id;
    await world.t.app.inject({ method: 'PATCH', url: `/review/diff/${first}/findings/${findingId}`, headers: teacher, payload: { verdict: 'wrong', note: 'PRIVATE_TEACHER_NOTE' } });
    const before = world.model.completions().length;
    const second = await postDiff(world.t.app, learner, { diff: PRICE_DIFF, repository: 'acme/shared' });
    const settled = await settledDiffReview(world.t.app, learner, second);
    expect(JSON.stringify(world.model.completions().slice(before).map((call) => call.body.messages))).not.toContain('PRIVATE_TEACHER_NOTE');
    expect(settled.review!.reviewRawJSON.comments).toHaveLength(1);
  });

  it('sent file paths cannot leave their folder, and the folder is removed after the review', async () => {
    const headers = await someone();
    const scratch = join(world.t.config.dataDir, 'diff-reviews');
    const files = [...PRICE_FILES, { path: '../../escaped.ts', content: 'ESCAPED' }, { path: '/etc/absolute.ts', content: 'ABSOLUTE' }, { path: '.git/config', content: 'GIT' }];
    const reviewId = await postDiff(world.t.app, headers, { diff: PRICE_DIFF, files });
    expect((await settledDiffReview(world.t.app, headers, reviewId)).status).toBe('completed');
    expect(await readdir(world.t.config.dataDir)).not.toContain('escaped.ts');
    expect(await readdir(scratch).catch(() => [])).toEqual([]);
  });
});
