import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reviews, webhookDeliveries } from '../../src/db/schema/index.js';
import { MODE_PROMPTS } from '../../src/review/ask/prompt-texts.js';
import type { ChatRequest } from '../fakes/fake-openai-chat.js';
import { signInWithGitHub, type GitHubSignIn } from '../helpers/github-login.js';
import { SAMPLE_DIFF, scriptedReviewer, settledReview, type ReviewInformation } from '../helpers/review-fixtures.js';
import { deliverPullRequest, reviewWorld, type ReviewWorld } from '../helpers/review-world.js';

/** decisions.md §10: `.ai-review.yml`, read from the base commit, end to end against the fakes. */
describe('.ai-review.yml', () => {
  let world: ReviewWorld;
  beforeAll(async () => {
    world = await reviewWorld();
    world.model.reply(scriptedReviewer());
  });
  afterAll(() => world.close());

  let repoCount = 0;
  /** A repository of its own per test: the file is cached per repository and base commit. */
  function repository(file?: string, baseSha = `base${++repoCount}`.padEnd(40, '0')) {
    const id = 900_000 + ++repoCount;
    const fullName = `config-org/repo-${id}`;
    if (file !== undefined) world.github.setFile(fullName, baseSha, '.ai-review.yml', file);
    return { repository: { id, full_name: fullName }, baseSha };
  }

  const information = async (author: GitHubSignIn, prId: number | string) =>
    (await world.t.app.inject({ method: 'GET', url: `/review/information/${prId}`, headers: { cookie: author.cookie } })).json<ReviewInformation[]>()[0]!;

  /** The model requests of a pull request: its diff and title are in the prompt. */
  const requestsFor = (title: string, from = 0): ChatRequest[] => world.model.completions().slice(from).filter((request) => JSON.stringify(request.body.messages).includes(title));
  const systemOf = (request: ChatRequest) => request.body.messages.find((message) => message.role === 'system')!.content as string;
  const promptOf = (request: ChatRequest) => JSON.stringify(request.body.messages.filter((message) => message.role === 'user'));

  it('is read from the base commit with the diff’s token, never from the head', async () => {
    const author = await signInWithGitHub(world.t.app, world.github);
    const repo = repository('reviews:\n  inline_min_severity: MAJOR\n');
    const headSha = 'feed'.padEnd(40, '1');
    // The pull request's own branch tries to switch its review off: it must not count.
    world.github.setFile(repo.repository.full_name, headSha, '.ai-review.yml', 'reviews:\n  auto: false\n');
    const payload = await deliverPullRequest(world, author, SAMPLE_DIFF, { ...repo, headSha, title: 'Read from base' });
    const review = await settledReview(world.t.app, author.cookie, payload.pull_request.id);

    expect(review.reviewStatus).toBe('completed');
    expect(review.reviewRawJSON).toMatchObject({ configProblems: [], repositoryConfig: { inlineMinSeverity: 'MAJOR' } });
    const reads = world.github.requests.filter((request) => request.path === `/repos/${repo.repository.full_name}/contents/.ai-review.yml`);
    expect(reads.map((request) => request.query.ref)).toEqual([repo.baseSha]);
    const diffRead = world.github.requests.find((request) => request.path === `/repos/${repo.repository.full_name}/pulls/${payload.pull_request.number}`)!;
    expect(reads[0]!.headers.authorization).toBe(diffRead.headers.authorization);
    expect(reads[0]!.headers.authorization).toMatch(/^Bearer gho_/);

    // Cached per repository and base commit: a re-run does not read it again.
    await world.t.app.inject({ method: 'POST', url: `/review/${payload.pull_request.id}`, headers: { cookie: author.cookie } });
    await settledReview(world.t.app, author.cookie, payload.pull_request.id, { until: (again) => again.triggeredBy === 'manual' });
    expect(world.github.requests.filter((request) => request.path === `/repos/${repo.repository.full_name}/contents/.ai-review.yml`)).toHaveLength(1);
  });

  it('a repository without the file reviews as before: no problems, no inline threshold', async () => {
    const author = await signInWithGitHub(world.t.app, world.github);
    const payload = await deliverPullRequest(world, author, SAMPLE_DIFF, { ...repository(), title: 'No file here' });
    const review = await settledReview(world.t.app, author.cookie, payload.pull_request.id);
    expect(review).toMatchObject({ reviewStatus: 'completed', mode: 'focused', configProblems: [] });
    expect(review.reviewRawJSON).toMatchObject({ configProblems: [], repositoryConfig: { inlineMinSeverity: null } });
    expect(review.skippedFiles).toEqual([{ path: 'package-lock.json', reason: 'lock file' }]);
  });

  it('exclude: matching files are skipped with the reason, not counted as reviewable, and never reach the model', async () => {
    const author = await signInWithGitHub(world.t.app, world.github);
    const before = world.model.completions().length;
    const payload = await deliverPullRequest(world, author, SAMPLE_DIFF, { ...repository('reviews:\n  exclude:\n    - "src/greet.*"\n'), title: 'Excluding greet' });
    const review = await settledReview(world.t.app, author.cookie, payload.pull_request.id);

    // In diff order, each file with the first rule that skips it.
    expect(review.skippedFiles).toEqual([
      { path: 'package-lock.json', reason: 'lock file' },
      { path: 'src/greet.ts', reason: 'excluded by .ai-review.yml' },
    ]);
    expect(review.reviewRawJSON!.skippedFiles).toEqual(review.skippedFiles);
    expect(review.coverage).toMatchObject({ files: 3, reviewableFiles: 1 });
    const [request] = requestsFor('Excluding greet', before);
    expect(promptOf(request!)).not.toContain("return 'Hello ' + name;");
    expect(promptOf(request!)).toContain('total += values[i];');
  });

  it('instructions: the text of a matching path reaches the model’s prompt; others do not', async () => {
    const author = await signInWithGitHub(world.t.app, world.github);
    const file = ['reviews:', '  instructions:', '    - path: "src/math.ts"', '      text: "MATH-RULE: loops must be bounded by length."', '    - path: "docs/**"', '      text: "DOCS-RULE: never seen here."', ''].join('\n');
    const before = world.model.completions().length;
    const payload = await deliverPullRequest(world, author, SAMPLE_DIFF, { ...repository(file), title: 'With instructions' });
    await settledReview(world.t.app, author.cookie, payload.pull_request.id);
    const [request] = requestsFor('With instructions', before);
    expect(systemOf(request!)).toContain('MATH-RULE: loops must be bounded by length.');
    expect(JSON.stringify(request!.body.messages)).not.toContain('DOCS-RULE');
  });

  it('mode: automatic reviews take the file’s mode; an explicit mode wins; a re-run without one takes the file’s', async () => {
    const author = await signInWithGitHub(world.t.app, world.github);
    const before = world.model.completions().length;
    const payload = await deliverPullRequest(world, author, SAMPLE_DIFF, { ...repository('reviews:\n  mode: quick\n'), title: 'Quick by file' });
    const first = await settledReview(world.t.app, author.cookie, payload.pull_request.id);
    expect(first.mode).toBe('quick');
    expect(systemOf(requestsFor('Quick by file', before)[0]!)).toContain(MODE_PROMPTS.quick);

    const rerun = async (body: Record<string, unknown>) => {
      const started = await world.t.app.inject({ method: 'POST', url: `/review/${payload.pull_request.id}`, headers: { cookie: author.cookie }, payload: body });
      expect(started.statusCode).toBe(200);
      return settledReview(world.t.app, author.cookie, payload.pull_request.id, { until: (review) => review.triggeredBy === 'manual' });
    };
    expect((await rerun({ mode: 'focused' })).mode).toBe('focused');
    expect((await rerun({})).mode).toBe('quick');
  });

  it('a broken or wrong file never stops the review: defaults for what is wrong, each problem with its line', async () => {
    const author = await signInWithGitHub(world.t.app, world.github);
    const file = ['reviews:', '  mode: turbo', '  colour: blue', '  exclude:', '    - "src/greet.ts"', '  inline_min_severity: 3', 'extra: 1', ''].join('\n');
    const payload = await deliverPullRequest(world, author, SAMPLE_DIFF, { ...repository(file), title: 'Wrong values' });
    const review = await settledReview(world.t.app, author.cookie, payload.pull_request.id);
    expect(review).toMatchObject({ reviewStatus: 'completed', mode: 'focused' });
    expect(review.configProblems).toEqual([
      { line: 2, message: expect.stringContaining('reviews.mode') },
      { line: 3, message: expect.stringContaining('Unknown key "reviews.colour"') },
      { line: 6, message: expect.stringContaining('reviews.inline_min_severity') },
      { line: 7, message: expect.stringContaining('Unknown key "extra"') },
    ]);
    expect(review.reviewRawJSON).toMatchObject({ configProblems: review.configProblems, repositoryConfig: { inlineMinSeverity: null } });
    // The valid key still applies.
    expect(review.skippedFiles).toContainEqual({ path: 'src/greet.ts', reason: 'excluded by .ai-review.yml' });

    const broken = await deliverPullRequest(world, author, SAMPLE_DIFF, { ...repository('reviews:\n  exclude: ["docs/**"\n  mode: quick\n'), title: 'Broken YAML' });
    const brokenReview = await settledReview(world.t.app, author.cookie, broken.pull_request.id);
    expect(brokenReview).toMatchObject({ reviewStatus: 'completed', mode: 'focused' });
    expect(brokenReview.configProblems).toEqual([expect.objectContaining({ line: expect.any(Number), message: expect.stringMatching(/^Invalid YAML/) })]);
    expect((brokenReview.configProblems as Array<{ line: number }>)[0]!.line).toBeGreaterThanOrEqual(2);
  });

  it('auto: false — a pull-request event leaves no review and no model call; a completed review stays as it was; commands still work', async () => {
    const author = await signInWithGitHub(world.t.app, world.github);
    const off = repository('reviews:\n  auto: false\n');
    const before = world.model.completions().length;
    const payload = await deliverPullRequest(world, author, SAMPLE_DIFF, { ...off, title: 'Auto off' });
    await expect.poll(async () => (await information(author, payload.pull_request.id)).state, { timeout: 20_000, interval: 50 }).toBeNull();
    expect(await information(author, payload.pull_request.id)).toMatchObject({ reviewStatus: 'pending', failureReason: null, reviewRawJSON: null });
    expect(requestsFor('Auto off', before)).toHaveLength(0);
    expect(world.github.requests.some((request) => request.path === `/repos/${off.repository.full_name}/pulls/${payload.pull_request.number}`)).toBe(false);

    // A person asking still gets a review.
    await world.t.app.inject({ method: 'POST', url: `/review/${payload.pull_request.id}`, headers: { cookie: author.cookie } });
    expect(await settledReview(world.t.app, author.cookie, payload.pull_request.id)).toMatchObject({ reviewStatus: 'completed', triggeredBy: 'manual' });

    // A reviewed pull request whose base now switches reviews off: the push leaves the last review as it was.
    const on = repository();
    const reviewed = await deliverPullRequest(world, author, SAMPLE_DIFF, { ...on, title: 'Reviewed then off', headSha: 'c1'.padEnd(40, '0'), updatedAt: '2025-01-01T00:00:00Z' });
    const completed = await settledReview(world.t.app, author.cookie, reviewed.pull_request.id);
    const newBase = 'b2'.padEnd(40, '0');
    world.github.setFile(on.repository.full_name, newBase, '.ai-review.yml', 'reviews:\n  auto: false\n');
    const calls = world.model.completions().length;
    await deliverPullRequest(world, author, SAMPLE_DIFF, {
      ...on,
      baseSha: newBase,
      prId: reviewed.pull_request.id,
      action: 'synchronize',
      headSha: 'c2'.padEnd(40, '0'),
      updatedAt: '2025-01-02T00:00:00Z',
    });
    const after = await settledReview(world.t.app, author.cookie, reviewed.pull_request.id);
    const outcome = (review: ReviewInformation) => {
      const { reviewStatus, state, reviewdSha, reviewStartedAt, reviewCompletedAt, reviewRawJSON, mode, coverage, attemptNumber, duration, triggeredBy, failureReason } = review;
      return { reviewStatus, state, reviewdSha, reviewStartedAt, reviewCompletedAt, reviewRawJSON, mode, coverage, attemptNumber, duration, triggeredBy, failureReason };
    };
    expect(outcome(after)).toEqual(outcome(completed));
    expect(world.model.completions().length).toBe(calls);
    const list = (await world.t.app.inject({ method: 'GET', url: '/pull-request/list', headers: { cookie: author.cookie } })).json<Array<{ prId: number; status: string }>>();
    expect(list.find((item) => item.prId === reviewed.pull_request.id)?.status).toBe('completed');
  });

  it('drafts: not reviewed by default (no trace left); reviewed with drafts: true', async () => {
    const author = await signInWithGitHub(world.t.app, world.github);
    const before = world.model.completions().length;
    const draft = await deliverPullRequest(world, author, SAMPLE_DIFF, { ...repository(), draft: true, title: 'Draft by default' });
    await expect.poll(async () => (await information(author, draft.pull_request.id)).state, { timeout: 20_000, interval: 50 }).toBeNull();
    expect(await information(author, draft.pull_request.id)).toMatchObject({ reviewStatus: 'pending', failureReason: null });
    expect(requestsFor('Draft by default', before)).toHaveLength(0);

    const reviewing = repository('reviews:\n  drafts: true\n');
    const reviewedDraft = await deliverPullRequest(world, author, SAMPLE_DIFF, { ...reviewing, draft: true, title: 'Draft reviewed' });
    expect(await settledReview(world.t.app, author.cookie, reviewedDraft.pull_request.id)).toMatchObject({ reviewStatus: 'completed', prIsDraft: true });
    expect(requestsFor('Draft reviewed', before)).toHaveLength(1);
    // The first draft of a base commit waited for the file (the undecidedDraft job); the next are
    // decided at intake from the cached file, and the file is read once.
    const deliveryOf = async (prId: number) => (await world.t.app.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.prId, prId)))[0]!;
    expect(await deliveryOf(reviewedDraft.pull_request.id)).toMatchObject({ awaitsConfig: true, startsReview: true });
    const nextDraft = await deliverPullRequest(world, author, SAMPLE_DIFF, { ...reviewing, draft: true, title: 'Next draft reviewed' });
    expect(await deliveryOf(nextDraft.pull_request.id)).toMatchObject({ awaitsConfig: false, startsReview: true });
    expect(await settledReview(world.t.app, author.cookie, nextDraft.pull_request.id)).toMatchObject({ reviewStatus: 'completed', prIsDraft: true });
    const reads = world.github.requests.filter((request) => request.path === `/repos/${reviewing.repository.full_name}/contents/.ai-review.yml`);
    expect(reads).toHaveLength(1);
  });

  it('drafts off: a draft decided at intake leaves no run; marked ready, it is reviewed', async () => {
    const author = await signInWithGitHub(world.t.app, world.github);
    const repo = repository('reviews:\n  mode: quick\n');
    const first = await deliverPullRequest(world, author, SAMPLE_DIFF, { ...repo, draft: true, title: 'First quiet draft' });
    // Its job reads the file (and caches it) and starts nothing.
    await expect.poll(() => world.github.requests.filter((request) => request.path === `/repos/${repo.repository.full_name}/contents/.ai-review.yml`).length, { timeout: 20_000, interval: 50 }).toBe(1);
    const draft = await deliverPullRequest(world, author, SAMPLE_DIFF, { ...repo, draft: true, title: 'Quiet draft' });
    const runs = await world.t.app.db.select().from(reviews).where(inArray(reviews.prId, [first.pull_request.id, draft.pull_request.id]));
    expect(runs).toHaveLength(0);

    const before = world.model.completions().length;
    await deliverPullRequest(world, author, SAMPLE_DIFF, { ...repo, prId: draft.pull_request.id, action: 'ready_for_review', draft: false, title: 'Quiet draft', updatedAt: '2030-01-01T00:00:00Z' });
    expect(await settledReview(world.t.app, author.cookie, draft.pull_request.id)).toMatchObject({ reviewStatus: 'completed', prIsDraft: false, mode: 'quick' });
    expect(requestsFor('Quiet draft', before)).toHaveLength(1);
  });
});
