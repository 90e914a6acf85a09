import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pullRequests } from '../../src/db/schema/index.js';
import { createAccount, type Account } from '../helpers/accounts.js';
import { signInWithGitHub, type GitHubSignIn } from '../helpers/github-login.js';
import { callAs, joinedAccount, type Org } from '../helpers/orgs.js';
import { SAMPLE_DIFF, scriptedReviewer, settledReview } from '../helpers/review-fixtures.js';
import { deliverPullRequest, reviewWorld, type ReviewWorld } from '../helpers/review-world.js';

interface ListItem {
  prId: number | string;
  title: string;
  org: { id: string; name: string } | null;
}

/**
 * decisions.md §15: an organization's pull request is read by every member (lists with `org` and
 * `?org=`, review information, diffs, re-runs, verdicts) and by nobody else, its author included
 * when not a member. Intake sets a pull request's organization (org-installations-happy.test.ts);
 * here the column is set directly, so the reading rules are tested without an installation.
 */
describe("an organization's pull requests", () => {
  let world: ReviewWorld;
  let lead: GitHubSignIn;
  let member: Account;
  let outsider: Account;
  let org: Org;
  let teamPr: number;
  let personalPr: number;
  const call = (who: { cookie: string }, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) => callAs(world.t.app, who.cookie, method, url, payload);
  const list = async (who: { cookie: string }, query = '') => {
    const response = await call(who, 'GET', `/pull-request/list${query}`);
    expect(response.statusCode, response.body).toBe(200);
    return response.json<ListItem[]>();
  };
  const findingOf = async (who: { cookie: string }) => (await settledReview(world.t.app, who.cookie, teamPr)).reviewRawJSON!.comments[0]!.id;

  beforeAll(async () => {
    world = await reviewWorld();
    world.model.reply(scriptedReviewer());
    lead = await signInWithGitHub(world.t.app, world.github);
    const created = await call(lead, 'POST', '/orgs', { name: 'Shared Reviews' });
    expect(created.statusCode, created.body).toBe(201);
    org = created.json<Org>();
    teamPr = (await deliverPullRequest(world, lead, SAMPLE_DIFF, { title: 'Team change' })).pull_request.id;
    personalPr = (await deliverPullRequest(world, lead, SAMPLE_DIFF, { title: 'Side project', number: 2 })).pull_request.id;
    member = await joinedAccount(world.t.app, world.t.outbox, { cookie: lead.cookie } as Account, org.id, 'member', 'Reviewer');
    outsider = await createAccount(world.t.app, world.t.outbox, { name: 'Outsider' });
  });
  afterAll(async () => {
    await world.close();
  });
  // Waiting for the reviews polls with expect, which only runs inside a test: the first test to need them waits.
  let settled: Promise<void> | undefined;
  const reviewed = () =>
    (settled ??= (async () => {
      const teamReview = await settledReview(world.t.app, lead.cookie, teamPr);
      await settledReview(world.t.app, lead.cookie, personalPr);
      await world.t.app.db.update(pullRequests).set({ orgId: org.id }).where(eq(pullRequests.id, teamReview.id));
    })());

  describe('happy', () => {
    it('lists everything the caller may see, each item with its organization, and one space with ?org=', async () => {
      await reviewed();
      const all = await list(lead);
      expect(all.map((item) => item.prId).sort()).toEqual([teamPr, personalPr].sort());
      const teamOrg = { id: org.id, name: 'Shared Reviews' };
      expect(all.find((item) => item.prId === teamPr)!.org).toEqual(teamOrg);
      expect(all.find((item) => item.prId === personalPr)!.org).toBeNull();
      // Each list shape reads `org` its own way (once per space, once per page, per row for a search): all say the same.
      const spaceOf = (items: ListItem[]) => items.map((item) => [item.prId, item.org]);
      expect(spaceOf(await list(lead, `?org=${org.id}`))).toEqual([[teamPr, teamOrg]]);
      expect(spaceOf(await list(lead, '?org=personal'))).toEqual([[personalPr, null]]);
      expect(spaceOf(await list(lead, '?search=team'))).toEqual([[teamPr, teamOrg]]);
      expect(spaceOf(await list(lead, '?search=side'))).toEqual([[personalPr, null]]);
      expect(spaceOf(await list(lead, `?org=${org.id}&reviewStatus=completed&search=team`))).toEqual([[teamPr, teamOrg]]);

      expect((await list(member)).map((item) => item.prId)).toEqual([teamPr]);
      expect((await list(member, `?org=${org.id.toUpperCase()}`)).map((item) => item.prId)).toEqual([teamPr]);
      expect(await list(member, '?org=personal')).toEqual([]);
    });

    it('answers an empty page, not 404, for an organization of the caller without pull requests', async () => {
      const empty = (await call(lead, 'POST', '/orgs', { name: 'Quiet Team' })).json<Org>();
      const response = await call(lead, 'GET', `/pull-request/list?org=${empty.id}`);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toEqual([]);
      expect((await call(member, 'GET', `/pull-request/list?org=${empty.id}`)).statusCode).toBe(404);
    });

    it("lets a member read the review and the diff, re-run it and give a verdict", async () => {
      await reviewed();
      const information = await call(member, 'GET', `/review/information/${teamPr}`);
      expect(information.statusCode, information.body).toBe(200);
      const diff = await call(member, 'GET', `/pull-request/diff/${teamPr}`);
      expect(diff.statusCode).toBe(200);
      expect(diff.body).toContain('src/math.ts');
      const verdict = await call(member, 'PATCH', `/review/${teamPr}/findings/${await findingOf(member)}`, { verdict: 'helpful' });
      expect(verdict.statusCode, verdict.body).toBe(204);
      const rerun = await call(member, 'POST', `/review/${teamPr}`, { mode: 'quick' });
      expect(rerun.statusCode, rerun.body).toBe(200);
      expect(await settledReview(world.t.app, member.cookie, teamPr, { until: (review) => review.mode === 'quick' && review.reviewStatus !== 'pending' })).toMatchObject({ reviewStatus: 'completed' });
    });
  });

  describe('errors', () => {
    it('answers 404 for ?org= naming no organization of the caller', async () => {
      for (const value of ['00000000-0000-4000-8000-000000000000', 'not-an-id']) {
        const response = await call(member, 'GET', `/pull-request/list?org=${value}`);
        expect(response.statusCode, value).toBe(404);
      }
    });
  });

  describe('security', () => {
    const everyRead = (finding: string): Array<['GET' | 'POST' | 'PATCH', string, object?]> => [
      ['GET', `/review/information/${teamPr}`],
      ['GET', `/pull-request/diff/${teamPr}`],
      ['POST', `/review/${teamPr}`, { mode: 'quick' }],
      ['PATCH', `/review/${teamPr}/findings/${finding}`, { verdict: 'wrong' }],
    ];

    it("gives a non-member 404 on the organization's pull request and its space, and lists nothing of it", async () => {
      const finding = await findingOf(lead);
      for (const [method, url, payload] of everyRead(finding)) expect((await call(outsider, method, url, payload)).statusCode, url).toBe(404);
      expect((await call(outsider, 'GET', `/pull-request/list?org=${org.id}`)).statusCode).toBe(404);
      expect(await list(outsider)).toEqual([]);
      expect((await call(outsider, 'GET', '/pull-request/list/summary')).json()).toEqual([]);
    });

    it('gives a removed member 404 from the next request', async () => {
      const finding = await findingOf(member);
      expect((await call(lead, 'DELETE', `/orgs/${org.id}/members/${member.id}`)).statusCode).toBe(204);
      for (const [method, url, payload] of everyRead(finding)) expect((await call(member, method, url, payload)).statusCode, url).toBe(404);
      expect((await call(member, 'GET', `/pull-request/list?org=${org.id}`)).statusCode).toBe(404);
      expect(await list(member)).toEqual([]);
    });

    it('keeps the personal pull requests of one member from the others', async () => {
      const rejoined = await joinedAccount(world.t.app, world.t.outbox, { cookie: lead.cookie } as Account, org.id, 'admin', 'Admin');
      expect((await call(rejoined, 'GET', `/review/information/${personalPr}`)).statusCode).toBe(404);
      expect((await call(rejoined, 'GET', `/pull-request/diff/${personalPr}`)).statusCode).toBe(404);
      expect((await list(rejoined)).map((item) => item.prId)).toEqual([teamPr]);
    });
  });
});
