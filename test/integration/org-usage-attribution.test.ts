import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usageRecords } from '../../src/db/schema/index.js';
import type { Account } from '../helpers/accounts.js';
import type { FakeUser } from '../fakes/fake-github-app.js';
import type { ChatRequest, ScriptedReply } from '../fakes/fake-openai-chat.js';
import { appPullRequest, appWorld, commentPayload, deliver, installationPayload, newRepo, type AppWorld, type Repo } from '../helpers/github-app-world.js';
import { githubUser, signInWithGitHub, type GitHubSignIn } from '../helpers/github-login.js';
import { expectStatus } from '../helpers/org-installations.js';
import { callAs, createOrg, invite, type Org } from '../helpers/orgs.js';
import { SAMPLE_DIFF, SAMPLE_FINDINGS, scriptedReviewer, settledReview, type ReviewInformation } from '../helpers/review-fixtures.js';

const SHA = 'a'.repeat(40);
const NONE = '(none)';

/** Review and verification prompts get the scripted reviewer's answers; anything else (a command's question) a plain answer. */
const reviewer = scriptedReviewer(SAMPLE_FINDINGS);
const model = (request: ChatRequest): ScriptedReply => (JSON.stringify(request.body.messages).includes('Answer with one JSON object') ? reviewer(request) : { text: 'The loop reads one element past the end.' });

/**
 * decisions.md §15, whose money: an organization's reviews, verifications and commands are recorded
 * in its usage, attributed to the member who triggered them — who ran the re-run or the command; for
 * a webhook's review, the author when a member — else to none, as `groupBy=member` shows them.
 */
describe("attribution of an organization's usage to the member who triggered it", () => {
  let world: AppWorld;
  let lead: GitHubSignIn;
  let teammate: GitHubSignIn & { profile: FakeUser };
  let outsider: GitHubSignIn;
  let org: Org;
  let repo: Repo;
  let installationId: number;
  let leadPr: number;
  let leadNumber: number;
  /** A pull request of an author with an account outside the organization: it is stored under them. */
  let outsiderNumber: number;
  let number = 0;

  const app = () => world.t.app;
  /** Generations by member key, the organization's whole history of today. */
  const byMember = async (orgId = org.id) => {
    const response = await callAs(app(), lead.cookie, 'GET', `/orgs/${orgId}/usage/history?groupBy=member`);
    expectStatus(response, 200);
    return new Map(response.json<{ buckets: Array<{ key: string; generations: number }> }>().buckets.map((bucket) => [bucket.key, bucket.generations]));
  };
  /** Which keys gained generations since `before`, and how many each. */
  const grown = (before: Map<string, number>, after: Map<string, number>) =>
    Object.fromEntries([...after].filter(([key, count]) => count > (before.get(key) ?? 0)).map(([key, count]) => [key, count - (before.get(key) ?? 0)]));
  const information = async (prId: number) => (await callAs(app(), lead.cookie, 'GET', `/review/information/${prId}`)).json<ReviewInformation[]>()[0]!;

  /** A pull request by the GitHub user `authorId`, through the organization's installation, reviewed: its GitHub id. */
  async function reviewedPullRequest(authorId: number, target = { installationId, repo }) {
    number++;
    world.github.openPull(target.repo.full_name, number, SHA, SAMPLE_DIFF);
    const payload = appPullRequest(target.installationId, target.repo, authorId, { headSha: SHA, number });
    expectStatus(await deliver(app(), 'pull_request', payload), 200);
    await settledReview(app(), lead.cookie, payload.pull_request.id, { until: (review) => review.reviewStatus === 'completed' });
    return payload.pull_request.id;
  }

  /** Runs `action`, waits for the new run of `prId` to complete, and says whose generations grew. */
  async function attributionOfRun(prId: number, action: () => Promise<unknown>) {
    const before = await byMember();
    const startedBefore = (await information(prId)).reviewStartedAt;
    await action();
    const run = await settledReview(app(), lead.cookie, prId, { until: (review) => review.reviewStartedAt !== startedBefore });
    expect(run).toMatchObject({ reviewStatus: 'completed', triggeredBy: 'manual' });
    return grown(before, await byMember());
  }

  /** A comment in the pull request by `user`, delivered as GitHub does. */
  async function comment(prNumber: number, body: string, user: FakeUser) {
    const written = world.github.addIssueComment(repo.full_name, prNumber, body, user);
    expectStatus(await deliver(app(), 'issue_comment', commentPayload(installationId, repo, prNumber, written, 'MEMBER')), 200);
    return written;
  }

  /** An organization of the lead's with an installation of a new repository, installed by the lead and moved in. */
  async function installedOrganization(name: string) {
    const created = await createOrg(app(), { cookie: lead.cookie } as Account, name);
    const target = { installationId: 4_700_000 + Math.floor(Math.random() * 90_000), repo: newRepo() };
    world.github.install(target.installationId, [target.repo.full_name]);
    expectStatus(await deliver(app(), 'installation', installationPayload('created', target.installationId, lead.githubId, [target.repo])), 200);
    expectStatus(await callAs(app(), lead.cookie, 'PATCH', `/github/installations/${target.installationId}`, { orgId: created.id }), 200);
    return { org: created, ...target };
  }

  beforeAll(async () => {
    // One review at a time: the spend limit's queue below is then decided run after run.
    world = await appWorld({ reviewConcurrency: 1 });
    world.model.reply(model);
    lead = await signInWithGitHub(app(), world.github);
    const profile = githubUser();
    teammate = { ...(await signInWithGitHub(app(), world.github, profile)), profile: { login: profile.login, id: profile.id, type: 'User' } };
    outsider = await signInWithGitHub(app(), world.github);
    ({ org, installationId, repo } = await installedOrganization('Attributed Team'));
    const { token } = await invite(app(), world.t.outbox, { cookie: lead.cookie } as Account, org.id, profile.email!);
    expectStatus(await callAs(app(), teammate.cookie, 'POST', '/invitations/accept', { token }), 200);
  });
  afterAll(() => world.close());

  it("a webhook's review is the author's when the author is a member, else none's (an author with an account outside the organization, or with none)", async () => {
    let before = await byMember();
    leadPr = await reviewedPullRequest(lead.githubId);
    leadNumber = number;
    expect(grown(before, await byMember())).toEqual({ [lead.userId]: 1 });

    before = await byMember();
    await reviewedPullRequest(outsider.githubId);
    outsiderNumber = number;
    expect(grown(before, await byMember())).toEqual({ [NONE]: 1 });

    // No account: the installer holds the pull request, yet did not write it.
    before = await byMember();
    await reviewedPullRequest(githubUser().id);
    expect(grown(before, await byMember())).toEqual({ [NONE]: 1 });
  });

  it("a re-run from the web app is the caller's, the verification of a deep re-run included, whoever wrote the pull request", async () => {
    const grew = await attributionOfRun(leadPr, () => callAs(app(), teammate.cookie, 'POST', `/review/${leadPr}`, { mode: 'deep' }).then((response) => expectStatus(response, 200)));
    // A review call and a verification call, both the teammate's.
    expect(grew).toEqual({ [teammate.userId]: 2 });
    const kinds = await callAs(app(), lead.cookie, 'GET', `/orgs/${org.id}/usage/history?groupBy=kind`);
    expect(kinds.json<{ buckets: Array<{ key: string }> }>().buckets.map((bucket) => bucket.key)).toContain('verification');
  });

  it("a command in the pull request is the commenter's when their GitHub account is a member's: /review and a question", async () => {
    expect(await attributionOfRun(leadPr, () => comment(leadNumber, '/review', teammate.profile))).toEqual({ [teammate.userId]: 1 });

    const before = await byMember();
    const question = await comment(leadNumber, `@${world.github.slug} why is the average wrong?`, teammate.profile);
    const answered = () => world.github.pull(repo.full_name, leadNumber).issueComments.some((reply) => reply.user.type === 'Bot' && reply.body.startsWith(`<!-- ai-review:reply:${question.id}`));
    await expect.poll(answered, { timeout: 15_000 }).toBe(true);
    // The answer and the new thread's title.
    expect(Object.keys(grown(before, await byMember()))).toEqual([teammate.userId]);
  });

  it('a question and a verdict reply work on a pull request stored under an author who is not a member, and the answer reads that pull request only', async () => {
    const before = await byMember();
    const question = await comment(outsiderNumber, `@${world.github.slug} why is the average wrong?`, teammate.profile);
    const answer = () => world.github.pull(repo.full_name, outsiderNumber).issueComments.find((reply) => reply.user.type === 'Bot' && reply.body.startsWith(`<!-- ai-review:reply:${question.id}`));
    await expect.poll(answer, { timeout: 15_000 }).toBeDefined();
    expect(answer()!.body).toContain('The loop reads one element past the end.');
    expect(Object.keys(grown(before, await byMember()))).toEqual([teammate.userId]);

    const [inline] = world.github.inlineComments(repo.full_name, outsiderNumber);
    const reply = {
      action: 'created',
      comment: { id: 9_500_000 + outsiderNumber, in_reply_to_id: inline!.id, body: '/wrong the caller checks for an empty list', user: teammate.profile, author_association: 'MEMBER' },
      pull_request: { number: outsiderNumber },
      repository: repo,
      installation: { id: installationId },
    };
    expectStatus(await deliver(app(), 'pull_request_review_comment', reply), 200);
    const learnings = await callAs(app(), teammate.cookie, 'GET', `/orgs/${org.id}/review/learnings`);
    expect(learnings.json<Array<{ note: string }>>().map((learning) => learning.note)).toContain('the caller checks for an empty list');
  });

  it("a check run's re-run is the member's who asked for it", async () => {
    const rerun = {
      action: 'rerequested',
      check_run: { name: 'AI review', head_sha: SHA, app: { id: Number(world.github.appId) }, pull_requests: [{ number: leadNumber }] },
      repository: repo,
      installation: { id: installationId },
      sender: { id: teammate.githubId, login: teammate.profile.login },
    };
    expect(await attributionOfRun(leadPr, () => deliver(app(), 'check_run', rerun).then((response) => expectStatus(response, 200)))).toEqual({ [teammate.userId]: 1 });
  });

  it('a command from a GitHub user with no account here, or with one outside the organization, is none’s', async () => {
    const stranger: FakeUser = { login: 'stranger', id: githubUser().id, type: 'User' };
    expect(await attributionOfRun(leadPr, () => comment(leadNumber, '/review', stranger))).toEqual({ [NONE]: 1 });
    const outsiderUser: FakeUser = { login: `octo-${outsider.githubId}`, id: outsider.githubId, type: 'User' };
    expect(await attributionOfRun(leadPr, () => comment(leadNumber, '/review', outsiderUser))).toEqual({ [NONE]: 1 });
  });

  it('the spend limit reached in the middle of a queue: the first review passes, the queued ones fail with the reason and are published; a raised limit lets the next run through', async () => {
    const limited = await installedOrganization('Limited Team');
    expectStatus(await callAs(app(), lead.cookie, 'PATCH', `/orgs/${limited.org.id}`, { monthlySpendLimitUsd: 0.0001 }), 200);
    // The model waits until every run is queued for it (the first one waiting at the model, the
    // others for the one review worker); one call costs $0.00014, past the limit.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    world.model.reply(async (request) => {
      await gate;
      return model(request);
    });
    const prIds: number[] = [];
    for (let at = 0; at < 3; at++) {
      number++;
      // A commit of its own: a check run is the commit's.
      const headSha = String(at + 1).repeat(40);
      world.github.openPull(limited.repo.full_name, number, headSha, SAMPLE_DIFF);
      const payload = appPullRequest(limited.installationId, limited.repo, lead.githubId, { headSha, number });
      expectStatus(await deliver(app(), 'pull_request', payload), 200);
      prIds.push(payload.pull_request.id);
    }
    await expect.poll(async () => (await Promise.all(prIds.map(information))).filter((review) => review.state === 'PR_CONTENT_EXTRACTED').length, { timeout: 15_000 }).toBe(3);
    release();

    const reason = "the organization's monthly spend limit of $0.0001 is reached";
    const settled = await Promise.all(prIds.map((prId) => settledReview(app(), lead.cookie, prId)));
    expect(settled.filter((review) => review.reviewStatus === 'completed')).toHaveLength(1);
    const failed = settled.filter((review) => review.reviewStatus === 'failed');
    expect(failed).toHaveLength(2);
    for (const review of failed) expect(review.failureReason).toContain(reason);
    // Nothing lost: each failed run's check says why.
    await expect
      .poll(() => world.github.checkRuns.filter((run) => run.repository === limited.repo.full_name && run.status === 'completed' && run.output.summary?.includes(reason)).length, { timeout: 15_000 })
      .toBe(2);
    world.model.reply(model);

    expectStatus(await callAs(app(), lead.cookie, 'PATCH', `/orgs/${limited.org.id}`, { monthlySpendLimitUsd: 25 }), 200);
    const again = failed[0]!.prId;
    expectStatus(await callAs(app(), lead.cookie, 'POST', `/review/${again}`, {}), 200);
    const resumed = await settledReview(app(), lead.cookie, again, { until: (review) => review.triggeredBy === 'manual' });
    expect(resumed).toMatchObject({ reviewStatus: 'completed', failureReason: null });
    expect(grown(new Map(), await byMember(limited.org.id))).toEqual({ [lead.userId]: 2 });
  });

  it('a personal pull request names no member', async () => {
    const personal = newRepo();
    const personalInstallation = 4_800_000 + Math.floor(Math.random() * 90_000);
    world.github.install(personalInstallation, [personal.full_name]);
    expectStatus(await deliver(app(), 'installation', installationPayload('created', personalInstallation, lead.githubId, [personal])), 200);
    const prId = await reviewedPullRequest(lead.githubId, { installationId: personalInstallation, repo: personal });
    const records = await app().db.select().from(usageRecords).where(eq(usageRecords.pullRequestId, (await information(prId)).id));
    expect(records.length).toBeGreaterThan(0);
    expect(records.every((record) => record.userId === lead.userId && record.orgId === null && record.memberId === null)).toBe(true);
  });
});
