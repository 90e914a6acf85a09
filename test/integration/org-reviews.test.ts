import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pullRequests, usageRecords } from '../../src/db/schema/index.js';
import type { FakeOpenAIChat } from '../fakes/fake-openai-chat.js';
import { startGateway } from '../helpers/byok.js';
import { signInWithGitHub, type GitHubSignIn } from '../helpers/github-login.js';
import { callAs, type Org } from '../helpers/orgs.js';
import { SAMPLE_DIFF, scriptedReviewer, settledReview } from '../helpers/review-fixtures.js';
import { deliverPullRequest, reviewWorld, type ReviewWorld } from '../helpers/review-world.js';

/**
 * decisions.md §15: a review of an organization's pull request reads the organization's prompt and
 * key (not the author's), is recorded in its usage, and stops at its monthly spend limit with the
 * stated reason, losing nothing. The pull request is moved in by its column, so these rules are
 * tested without an installation; org-team-story.test.ts takes the same path through intake.
 */
describe("reviews of an organization's pull requests", () => {
  let world: ReviewWorld;
  let gateway: FakeOpenAIChat;
  let author: GitHubSignIn;
  let org: Org;
  let prId: string;
  let githubPrId: number;
  const call = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object) => callAs(world.t.app, author.cookie, method, url, payload);

  beforeAll(async () => {
    world = await reviewWorld();
    world.model.reply(scriptedReviewer());
    gateway = await startGateway({ apiKey: 'team-gateway-key-0001', models: [{ id: 'team-model' }], reply: scriptedReviewer() });
    author = await signInWithGitHub(world.t.app, world.github);
    expect((await call('POST', '/workspace/aiSettings', { systemPrompt: 'PERSONAL-PROMPT-MARK' })).statusCode).toBe(201);
    const created = await call('POST', '/orgs', { name: 'Reviewing Team' });
    org = created.json<Org>();
    expect((await call('POST', `/orgs/${org.id}/workspace/aiSettings`, { systemPrompt: 'TEAM-PROMPT-MARK', quickModeModel: 'team-model', deepModeModel: 'team-model' })).statusCode).toBe(201);
    const key = await call('POST', `/orgs/${org.id}/byok`, { modelProviderName: 'custom', customBaseUrl: gateway.url, apiKey: gateway.apiKey });
    expect(key.statusCode, key.body).toBe(201);
  });
  afterAll(async () => {
    await world.close();
    await gateway.stop();
  });

  const rerun = async (mode: 'quick' | 'deep') => {
    const response = await call('POST', `/review/${prId}`, { mode });
    expect(response.statusCode, response.body).toBe(200);
    return settledReview(world.t.app, author.cookie, githubPrId, { until: (review) => review.mode === mode && review.reviewStatus !== 'pending' });
  };

  it("reads the organization's prompt and key, not the author's, and records the use in the organization's usage", async () => {
    const payload = await deliverPullRequest(world, author, SAMPLE_DIFF, { title: 'A team change' });
    githubPrId = payload.pull_request.id;
    prId = (await settledReview(world.t.app, author.cookie, githubPrId)).id;
    await world.t.app.db.update(pullRequests).set({ orgId: org.id }).where(eq(pullRequests.id, prId));

    const platformBefore = world.model.completions().length;
    const review = await rerun('quick');
    expect(review).toMatchObject({ reviewStatus: 'completed', failureReason: null });
    const calls = gateway.completions();
    expect(calls.length).toBeGreaterThan(0);
    const sent = JSON.stringify(calls.at(-1)!.body.messages);
    expect(sent).toContain('TEAM-PROMPT-MARK');
    expect(sent).not.toContain('PERSONAL-PROMPT-MARK');
    expect(world.model.completions().length).toBe(platformBefore);

    const records = await world.t.app.db.select().from(usageRecords).where(eq(usageRecords.pullRequestId, prId));
    const team = records.filter((record) => record.orgId === org.id);
    expect(team.length).toBeGreaterThan(0);
    // The author is a member (the owner): the organization's use is attributed to them.
    expect(team.every((record) => record.userId === null && record.memberId === author.userId && record.source === 'custom')).toBe(true);
    const runs = await call('GET', `/orgs/${org.id}/usage/reviews`);
    expect(runs.json<{ count: number }>().count).toBe(1);
  });

  it('stops new runs at the monthly spend limit with the stated reason, and the next run after raising it goes through', async () => {
    expect((await call('PATCH', `/orgs/${org.id}`, { monthlySpendLimitUsd: 0 })).statusCode).toBe(200);
    const before = gateway.completions().length;
    const stopped = await rerun('deep');
    expect(stopped.reviewStatus).toBe('failed');
    expect(stopped.failureReason).toContain("the organization's monthly spend limit of $0.00 is reached");
    expect(gateway.completions().length).toBe(before);

    expect((await call('PATCH', `/orgs/${org.id}`, { monthlySpendLimitUsd: 25 })).statusCode).toBe(200);
    const resumed = await rerun('quick');
    expect(resumed).toMatchObject({ reviewStatus: 'completed', failureReason: null });
    expect(gateway.completions().length).toBeGreaterThan(before);
  });

  it("a personal pull request keeps the author's own settings", async () => {
    const payload = await deliverPullRequest(world, author, SAMPLE_DIFF, { title: 'A personal change', number: 77 });
    const before = world.model.completions().length;
    const review = await settledReview(world.t.app, author.cookie, payload.pull_request.id);
    expect(review.reviewStatus).toBe('completed');
    const sent = JSON.stringify(world.model.completions().slice(before).map((request) => request.body.messages));
    expect(sent).toContain('PERSONAL-PROMPT-MARK');
    expect(sent).not.toContain('TEAM-PROMPT-MARK');
  });
});
