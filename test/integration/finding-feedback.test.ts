import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../helpers/accounts.js';
import { signInWithGitHub, type GitHubSignIn } from '../helpers/github-login.js';
import { reviewAnswer, SAMPLE_DIFF, scriptedReviewer, settledReview, type ReviewInformation } from '../helpers/review-fixtures.js';
import { deliverPullRequest, reviewWorld, type ReviewWorld } from '../helpers/review-world.js';

const OFF_BY_ONE = 'Off-by-one reads past the end of the array';
const NOTE = 'LEARNING-MARKER: values is never empty here, the caller checks it.';

interface Finding {
  id: string;
  title: string;
  verdict: string | null;
}

/** decisions.md §10 "Learning from feedback", end to end against the fake GitHub and model. */
describe('findings feedback', () => {
  let world: ReviewWorld;
  beforeAll(async () => {
    world = await reviewWorld();
    world.model.reply(scriptedReviewer());
  });
  afterAll(() => world.close());

  let repoCount = 0;
  const newRepository = () => {
    const id = 800_000 + ++repoCount;
    return { id, full_name: `feedback-org/repo-${id}` };
  };

  const findings = (review: ReviewInformation) => review.reviewRawJSON!.comments as unknown as Finding[];
  const mark = (author: { cookie: string }, prId: number | string, findingId: string, payload: unknown) =>
    world.t.app.inject({ method: 'PATCH', url: `/review/${prId}/findings/${findingId}`, headers: { cookie: author.cookie }, payload: payload as Record<string, unknown> });
  const learnings = (author: { cookie: string }, repo?: string) =>
    world.t.app.inject({ method: 'GET', url: repo === undefined ? '/review/learnings' : `/review/learnings?repo=${encodeURIComponent(repo)}`, headers: { cookie: author.cookie } });

  /** A pull request of `repository` reviewed to completion, and the model requests it made. */
  async function reviewed(author: GitHubSignIn, repository: { id: number; full_name: string }, overrides: Record<string, unknown> = {}) {
    const before = world.model.completions().length;
    const payload = await deliverPullRequest(world, author, SAMPLE_DIFF, { repository, ...overrides });
    const review = await settledReview(world.t.app, author.cookie, payload.pull_request.id, {
      until: (done) => overrides.headSha === undefined || done.reviewdSha === overrides.headSha,
    });
    return { payload, review, requests: world.model.completions().slice(before) };
  }

  describe('happy path', () => {
    it('a finding marked wrong is not reported again on the next push or the next pull request, and its note reaches the prompt; another repository is unaffected', async () => {
      const author = await signInWithGitHub(world.t.app, world.github);
      const repository = newRepository();
      const first = await reviewed(author, repository, { headSha: 'a1'.padEnd(40, '0'), updatedAt: '2025-01-01T00:00:00Z' });
      const offByOne = findings(first.review).find((finding) => finding.title === OFF_BY_ONE)!;
      expect(offByOne.verdict).toBeNull();

      const marked = await mark(author, first.payload.pull_request.id, offByOne.id, { verdict: 'wrong', note: NOTE });
      expect(marked.statusCode).toBe(204);
      expect(marked.body).toBe('');
      const shown = findings(await settledReview(world.t.app, author.cookie, first.payload.pull_request.id));
      expect(shown.find((finding) => finding.id === offByOne.id)?.verdict).toBe('wrong');
      expect(shown.filter((finding) => finding.id !== offByOne.id).every((finding) => finding.verdict === null)).toBe(true);

      // The next push (GitHub cannot compare: the whole diff is reviewed again, and the model repeats itself).
      const push = await reviewed(author, repository, { prId: first.payload.pull_request.id, action: 'synchronize', headSha: 'a2'.padEnd(40, '0'), updatedAt: '2025-01-02T00:00:00Z' });
      expect(findings(push.review).map((finding) => finding.title)).not.toContain(OFF_BY_ONE);
      expect(push.review.reviewRawJSON!.droppedFindings.suppressed).toBe(1);
      expect(JSON.stringify(push.requests[0]!.body.messages)).toContain(NOTE);

      // The next pull request of the repository.
      const next = await reviewed(author, repository);
      expect(findings(next.review).map((finding) => finding.title)).not.toContain(OFF_BY_ONE);
      expect(JSON.stringify(next.requests[0]!.body.messages)).toContain(NOTE);

      // Another repository: reported, and the note is not there.
      const elsewhere = await reviewed(author, newRepository());
      expect(findings(elsewhere.review).map((finding) => finding.title)).toContain(OFF_BY_ONE);
      expect(JSON.stringify(elsewhere.requests[0]!.body.messages)).not.toContain(NOTE);
    });

    it('after a push GitHub can compare, a rejected finding carried over from the last review is dropped too', async () => {
      const author = await signInWithGitHub(world.t.app, world.github);
      const repository = newRepository();
      const [head1, head2] = ['d1'.padEnd(40, '0'), 'd2'.padEnd(40, '0')];
      const first = await reviewed(author, repository, { headSha: head1, updatedAt: '2025-01-01T00:00:00Z' });
      const offByOne = findings(first.review).find((finding) => finding.title === OFF_BY_ONE)!;
      expect((await mark(author, first.payload.pull_request.id, offByOne.id, { verdict: 'wontfix' })).statusCode).toBe(204);

      // The push touches greet.ts only: the math.ts finding would be carried to the new review.
      const push = `diff --git a/src/greet.ts b/src/greet.ts
index 3333333..6666666 100644
--- a/src/greet.ts
+++ b/src/greet.ts
@@ -1,3 +1,4 @@
 export function greet(name: string) {
+  if (!name) throw new Error('name');
   return 'Hello ' + name;
 }
`;
      world.github.setCompare(repository.full_name, head1, head2, push);
      world.model.enqueue({ text: reviewAnswer([]) });
      const second = await reviewed(author, repository, { prId: first.payload.pull_request.id, action: 'synchronize', headSha: head2, updatedAt: '2025-01-02T00:00:00Z' });
      expect(second.review.reviewRawJSON!.summary.overview).toMatch(/changes since/);
      expect(findings(second.review).map((finding) => finding.title)).not.toContain(OFF_BY_ONE);
      expect(second.review.reviewRawJSON!.droppedFindings.suppressed).toBe(1);
    });

    it('wontfix suppresses without a learning; helpful changes nothing; learnings are listed and can be forgotten', async () => {
      const author = await signInWithGitHub(world.t.app, world.github);
      const repository = newRepository();
      const first = await reviewed(author, repository);
      const [offByOne, clamp] = [findings(first.review).find((finding) => finding.title === OFF_BY_ONE)!, findings(first.review).find((finding) => finding.title !== OFF_BY_ONE)!];
      expect((await mark(author, first.payload.pull_request.id, offByOne.id, { verdict: 'wontfix', note: 'Known, tracked elsewhere.' })).statusCode).toBe(204);
      expect((await mark(author, first.review.id, clamp.id, { verdict: 'helpful' })).statusCode).toBe(204);
      expect((await learnings(author, repository.full_name)).json()).toEqual([]);

      const next = await reviewed(author, repository);
      expect(findings(next.review).map((finding) => finding.title)).toEqual([clamp.title]);
      expect(next.review.reviewRawJSON!.droppedFindings.suppressed).toBe(1);

      // Changing the verdict to wrong with a note makes a learning; it is listed, then forgotten.
      expect((await mark(author, first.payload.pull_request.id, offByOne.id, { verdict: 'wrong', note: '  Empty arrays never reach average().  ' })).statusCode).toBe(204);
      const listed = await learnings(author, repository.full_name);
      expect(listed.statusCode).toBe(200);
      expect(listed.json()).toEqual([{ id: expect.any(String), repositoryName: repository.full_name, note: 'Empty arrays never reach average().', findingTitle: OFF_BY_ONE, createdAt: expect.stringMatching(/\.\d{3}Z$/) }]);
      expect((await learnings(author)).json()).toEqual(listed.json());
      expect((await learnings(author, 'someone/else')).json()).toEqual([]);

      const [learning] = listed.json<Array<{ id: string }>>();
      expect((await world.t.app.inject({ method: 'DELETE', url: `/review/learnings/${learning!.id}`, headers: { cookie: author.cookie } })).statusCode).toBe(204);
      expect((await learnings(author, repository.full_name)).json()).toEqual([]);
      const after = await reviewed(author, repository);
      expect(JSON.stringify(after.requests[0]!.body.messages)).not.toContain('Empty arrays never reach');
      // The verdict itself stands: the finding stays suppressed.
      expect(findings(after.review).map((finding) => finding.title)).not.toContain(OFF_BY_ONE);
    });
  });

  describe('errors', () => {
    it('bad verdicts, notes, ids and queries are 400s; unknown findings, pull requests and learnings are 404s; no session is 401', async () => {
      const author = await signInWithGitHub(world.t.app, world.github);
      const { payload, review } = await reviewed(author, newRepository());
      const findingId = findings(review)[0]!.id;
      const prId = payload.pull_request.id;

      for (const body of [{}, { verdict: 'meh' }, { verdict: 'wrong', note: 'a\u0000b' }, { verdict: 'wrong', note: 'x'.repeat(2001) }, { verdict: 'wrong', extra: 1 }, { verdict: 'wrong', note: '\ud800' }]) {
        const response = await mark(author, prId, findingId, body);
        expect(response.statusCode, JSON.stringify(body)).toBe(400);
        expect(response.json()).toMatchObject({ statusCode: 400, error: 'Bad Request', details: expect.any(Array) });
      }
      expect((await mark(author, 'not-an-id', findingId, { verdict: 'wrong' })).statusCode).toBe(400);
      expect((await mark(author, prId, 'bad.id', { verdict: 'wrong' })).statusCode).toBe(400);
      expect((await mark(author, prId, 'feedbeefcafe0000', { verdict: 'wrong' })).statusCode).toBe(404);
      expect((await mark(author, 123456789, findingId, { verdict: 'wrong' })).statusCode).toBe(404);

      expect((await learnings(author, 'not a repo')).statusCode).toBe(400);
      const deleteLearning = (id: string) => world.t.app.inject({ method: 'DELETE', url: `/review/learnings/${id}`, headers: { cookie: author.cookie } });
      expect((await deleteLearning('nope')).statusCode).toBe(400);
      expect((await deleteLearning('00000000-0000-4000-8000-000000000000')).statusCode).toBe(404);

      expect((await world.t.app.inject({ method: 'PATCH', url: `/review/${prId}/findings/${findingId}`, payload: { verdict: 'wrong' } })).statusCode).toBe(401);
      expect((await world.t.app.inject({ method: 'GET', url: '/review/learnings' })).statusCode).toBe(401);
    });
  });

  describe('security', () => {
    it('another user can neither mark a user’s findings nor list or delete their learnings (404), and their verdicts do not touch the user’s reviews', async () => {
      const author = await signInWithGitHub(world.t.app, world.github);
      const stranger = await createAccount(world.t.app, world.t.outbox);
      const repository = newRepository();
      const { payload, review } = await reviewed(author, repository);
      const offByOne = findings(review).find((finding) => finding.title === OFF_BY_ONE)!;

      expect((await mark(stranger, payload.pull_request.id, offByOne.id, { verdict: 'wrong', note: 'hijack' })).statusCode).toBe(404);
      expect((await mark(stranger, review.id, offByOne.id, { verdict: 'wrong' })).statusCode).toBe(404);
      expect(findings(await settledReview(world.t.app, author.cookie, payload.pull_request.id)).find((finding) => finding.id === offByOne.id)?.verdict).toBeNull();

      expect((await mark(author, payload.pull_request.id, offByOne.id, { verdict: 'wrong', note: NOTE })).statusCode).toBe(204);
      expect((await learnings(stranger, repository.full_name)).json()).toEqual([]);
      expect((await learnings(stranger)).json()).toEqual([]);
      const [learning] = (await learnings(author, repository.full_name)).json<Array<{ id: string }>>();
      const stolen = await world.t.app.inject({ method: 'DELETE', url: `/review/learnings/${learning!.id}`, headers: { cookie: stranger.cookie } });
      expect(stolen.statusCode).toBe(404);
      expect((await learnings(author, repository.full_name)).json()).toHaveLength(1);

      // Another user's pull requests in the same repository keep their findings and get no notes.
      const other = await signInWithGitHub(world.t.app, world.github);
      const theirs = await reviewed(other, repository);
      expect(findings(theirs.review).map((finding) => finding.title)).toContain(OFF_BY_ONE);
      expect(JSON.stringify(theirs.requests[0]!.body.messages)).not.toContain(NOTE);
    });
  });
});
