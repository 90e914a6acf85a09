import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, type Account } from '../helpers/accounts.js';
import { startGateway } from '../helpers/byok.js';
import { appModel, appPullRequest, appWorld, deliver, installationPayload, newRepo, publication, type AppWorld } from '../helpers/github-app-world.js';
import { githubUser, signInWithGitHub } from '../helpers/github-login.js';
import { expectStatus } from '../helpers/org-installations.js';
import { callAs, createOrg, joinedAccount } from '../helpers/orgs.js';
import { SAMPLE_DIFF, SAMPLE_FINDINGS } from '../helpers/review-fixtures.js';
import type { FakeOpenAIChat } from '../fakes/fake-openai-chat.js';

interface ListItem {
  prId: number;
  org: { id: string; name: string } | null;
}

/**
 * decisions.md §15 as a team lead lives it, every step through the API and the App's webhooks: a
 * lead creates an organization, invites two colleagues who accept from their email, and moves the
 * GitHub App installation in. All three then see every review of the team's repository, made with
 * the team's prompt and key and capped by its monthly limit; the audit log shows each step, and
 * nobody outside the team sees any of it.
 */
describe('a team from its creation to its capped reviews', () => {
  let world: AppWorld;
  let gateway: FakeOpenAIChat;
  beforeAll(async () => {
    world = await appWorld();
    world.model.reply(appModel(SAMPLE_FINDINGS));
    gateway = await startGateway({ apiKey: 'team-key-story-0001', models: [{ id: 'team-model' }], reply: appModel(SAMPLE_FINDINGS) });
  });
  afterAll(async () => {
    await world.close();
    await gateway.stop();
  });

  it('creates, invites, moves the installation in; every member reads the reviews made with its prompt and key, the limit stops the next, the audit log shows it all, and an outsider sees nothing', async () => {
    const { t, github } = world;
    const app = t.app;
    const signedIn = await signInWithGitHub(app, github);
    const lead = { cookie: signedIn.cookie } as Account;
    expectStatus(await callAs(app, lead.cookie, 'POST', '/workspace/aiSettings', { systemPrompt: 'LEAD-OWN-PROMPT' }), 201);

    // The lead's installation of the team's repository, personal at first.
    const repo = newRepo();
    const installationId = 4_900_000 + Math.floor(Math.random() * 90_000);
    github.install(installationId, [repo.full_name]);
    expectStatus(await deliver(app, 'installation', installationPayload('created', installationId, signedIn.githubId, [repo])), 200);

    const org = await createOrg(app, lead, 'Story Team');
    const models = { quickModeModel: 'team-model', focusedModeModel: 'team-model', deepModeModel: 'team-model' };
    expectStatus(await callAs(app, lead.cookie, 'POST', `/orgs/${org.id}/workspace/aiSettings`, { systemPrompt: 'TEAM-PROMPT', ...models }), 201);
    expectStatus(await callAs(app, lead.cookie, 'POST', `/orgs/${org.id}/byok`, { modelProviderName: 'custom', customBaseUrl: gateway.url, apiKey: gateway.apiKey }), 201);
    expectStatus(await callAs(app, lead.cookie, 'PATCH', `/orgs/${org.id}`, { monthlySpendLimitUsd: 25 }), 200);
    // Each colleague signs up, reads the invitation in their email and accepts it.
    const colleagues = [await joinedAccount(app, t.outbox, lead, org.id, 'admin', 'Colleague One'), await joinedAccount(app, t.outbox, lead, org.id, 'member', 'Colleague Two')];
    expectStatus(await callAs(app, lead.cookie, 'PATCH', `/github/installations/${installationId}`, { orgId: org.id }), 200);

    // A pull request by someone without an account arrives through the installation: the team's.
    const reviewed = async (number: number, headSha: string) => {
      github.openPull(repo.full_name, number, headSha, SAMPLE_DIFF);
      const payload = appPullRequest(installationId, repo, githubUser().id, { headSha, number });
      expectStatus(await deliver(app, 'pull_request', payload), 200);
      const prId = payload.pull_request.id;
      return { prId, review: await publication(app, lead.cookie, prId, (review) => review.reviewStatus !== 'pending' && review.publication.state === 'published') };
    };
    const platformCalls = world.model.completions().length;
    const first = await reviewed(1, '1'.repeat(40));
    expect(first.review).toMatchObject({ reviewStatus: 'completed', failureReason: null });
    const prompts = JSON.stringify(gateway.completions().map((call) => call.body.messages));
    expect(prompts).toContain('TEAM-PROMPT');
    expect(prompts).not.toContain('LEAD-OWN-PROMPT');
    expect(world.model.completions().length).toBe(platformCalls);

    // All three read it, marked with the team.
    for (const who of [lead, ...colleagues]) {
      const list = await callAs(app, who.cookie, 'GET', `/pull-request/list?org=${org.id}`);
      expectStatus(list, 200);
      expect(list.json<ListItem[]>()).toEqual([expect.objectContaining({ prId: first.prId, org: { id: org.id, name: 'Story Team' } })]);
      expectStatus(await callAs(app, who.cookie, 'GET', `/review/information/${first.prId}`), 200);
    }

    // The limit reached, the next review stops with the stated reason, and its check says why.
    expectStatus(await callAs(app, colleagues[0]!.cookie, 'PATCH', `/orgs/${org.id}`, { monthlySpendLimitUsd: 0 }), 200);
    const gatewayCalls = gateway.completions().length;
    const capped = await reviewed(2, '2'.repeat(40));
    const reason = "the organization's monthly spend limit of $0.00 is reached";
    expect(capped.review.reviewStatus).toBe('failed');
    expect(capped.review.failureReason).toContain(reason);
    expect(gateway.completions().length).toBe(gatewayCalls);
    // Its one check run says why, once both of the run's publishing jobs are done (the run failed
    // at once, so they ran together).
    await expect.poll(async () => { const counts = await app.queue.counts('completedReview'); return counts.waiting + counts.active; }, { timeout: 10_000 }).toBe(0);
    const checks = github.checkRuns.filter((run) => run.repository === repo.full_name && run.head_sha === '2'.repeat(40));
    expect(checks.map((run) => [run.status, run.output.summary])).toEqual([['completed', `The AI review of 222222222222 failed: ${reason}`]]);

    // The audit log, newest first: each step, by whom.
    const audit = await callAs(app, lead.cookie, 'GET', `/orgs/${org.id}/audit`);
    expectStatus(audit, 200);
    const items = audit.json<{ items: Array<{ action: string; actor: { userId: string } | null }> }>().items;
    expect(items.map((item) => item.action).reverse()).toEqual([
      'org.created',
      'settings.changed',
      'key.added',
      'spend_limit.changed',
      'member.invited',
      'member.joined',
      'member.invited',
      'member.joined',
      'installation.moved',
      'spend_limit.changed',
    ]);
    expect(JSON.stringify(items)).not.toContain(gateway.apiKey);

    // Nobody outside the team sees any of it.
    const outsider = await createAccount(app, t.outbox, { name: 'Outsider' });
    for (const prId of [first.prId, capped.prId]) expectStatus(await callAs(app, outsider.cookie, 'GET', `/review/information/${prId}`), 404);
    expect((await callAs(app, outsider.cookie, 'GET', '/pull-request/list')).json<ListItem[]>()).toEqual([]);
    for (const path of [`/orgs/${org.id}`, `/orgs/${org.id}/audit`, `/orgs/${org.id}/workspace/aiSettings`, `/pull-request/list?org=${org.id}`]) {
      expectStatus(await callAs(app, outsider.cookie, 'GET', path), 404);
    }
  });
});
