import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Account } from '../helpers/accounts.js';
import { createAccount } from '../helpers/accounts.js';
import { appModel, appPullRequest, appWorld, deliver, installationPayload, member as commenter, newRepo, publication, type AppWorld, type Repo } from '../helpers/github-app-world.js';
import { githubUser, signInWithGitHub, type GitHubSignIn } from '../helpers/github-login.js';
import { expectStatus } from '../helpers/org-installations.js';
import { callAs, createOrg, joinedAccount, type Org } from '../helpers/orgs.js';
import { SAMPLE_DIFF, SAMPLE_FINDINGS } from '../helpers/review-fixtures.js';

const OFF_BY_ONE = 'Off-by-one reads past the end of the array';
const TEAM_NOTE = 'TEAM-LEARNING-MARK: values is never empty here, the caller checks it.';
const REPLY_NOTE = 'TEAM-REPLY-MARK: clamping is done upstream';

interface Learning {
  id: string;
  repositoryName: string;
  note: string;
}
interface Finding {
  id: string;
  title: string;
  verdict: string | null;
}

/**
 * decisions.md §10 and §15: the verdicts on an organization's pull requests, whichever member gives
 * them (through the API or a reply on GitHub), teach the organization's reviews of that repository,
 * never another organization's nor a personal space's; they move with the installation.
 */
describe("an organization's learnings", () => {
  let world: AppWorld;
  let lead: GitHubSignIn;
  let leadAccount: Account;
  let teammate: Account;
  let admin: Account;
  let org: Org;
  let repo: Repo;
  let teamInstallation: number;
  let stranger: GitHubSignIn;
  let strangersOrg: Org;
  let next = 4_500_000 + Math.floor(Math.random() * 90_000);
  let nextNumber = 1;
  let teamFinding: { prId: number; id: string };

  beforeAll(async () => {
    world = await appWorld();
    world.model.reply(appModel(SAMPLE_FINDINGS));
    lead = await signInWithGitHub(world.t.app, world.github);
    leadAccount = { id: lead.userId, cookie: lead.cookie } as Account;
    org = await createOrg(world.t.app, leadAccount, 'Learning Team');
    teammate = await joinedAccount(world.t.app, world.t.outbox, leadAccount, org.id, 'member', 'Team Member');
    admin = await joinedAccount(world.t.app, world.t.outbox, leadAccount, org.id, 'admin', 'Team Admin');
    repo = newRepo();
    teamInstallation = await installed(lead, repo);
    expectStatus(await callAs(world.t.app, lead.cookie, 'PATCH', `/github/installations/${teamInstallation}`, { orgId: org.id }), 200);
    stranger = await signInWithGitHub(world.t.app, world.github);
    strangersOrg = await createOrg(world.t.app, { id: stranger.userId, cookie: stranger.cookie } as Account, 'Elsewhere');
  });
  afterAll(() => world.close());

  async function installed(installer: GitHubSignIn, repository: Repo) {
    const installationId = next++;
    world.github.install(installationId, [repository.full_name]);
    expectStatus(await deliver(world.t.app, 'installation', installationPayload('created', installationId, installer.githubId, [repository])), 200);
    return installationId;
  }

  /** A pull request by an unregistered author through the installation, reviewed and published: its findings and the model requests of its review. */
  async function reviewed(installationId: number, repository: Repo, cookie: string) {
    const number = nextNumber++;
    const sha = String(number).padStart(2, '0').repeat(20);
    const before = world.model.completions().length;
    world.github.openPull(repository.full_name, number, sha, SAMPLE_DIFF);
    const payload = appPullRequest(installationId, repository, githubUser().id, { headSha: sha, number });
    expectStatus(await deliver(world.t.app, 'pull_request', payload), 200);
    const review = await publication(world.t.app, cookie, payload.pull_request.id, (done) => done.publication.state === 'published');
    const prompts = JSON.stringify(world.model.completions().slice(before).map((request) => request.body.messages));
    return { prId: payload.pull_request.id, number, findings: review.reviewRawJSON!.comments as unknown as Finding[], prompts };
  }

  const learnings = async (cookie: string, path: string) => {
    const response = await callAs(world.t.app, cookie, 'GET', path);
    expectStatus(response, 200);
    return response.json<Learning[]>();
  };
  const teamLearnings = (cookie = teammate.cookie) => learnings(cookie, `/orgs/${org.id}/review/learnings?repo=${encodeURIComponent(repo.full_name)}`);

  it("a member's verdict (API) and a reply on GitHub teach the organization's next reviews; personal lists stay empty", async () => {
    const first = await reviewed(teamInstallation, repo, teammate.cookie);
    const offByOne = first.findings.find((finding) => finding.title === OFF_BY_ONE)!;
    teamFinding = { prId: first.prId, id: first.findings.find((finding) => finding.title !== OFF_BY_ONE)!.id };
    expectStatus(await callAs(world.t.app, teammate.cookie, 'PATCH', `/review/${first.prId}/findings/${offByOne.id}`, { verdict: 'wrong', note: TEAM_NOTE }), 204);

    expect(await teamLearnings()).toEqual([expect.objectContaining({ repositoryName: repo.full_name, note: TEAM_NOTE })]);
    expect(await teamLearnings(lead.cookie)).toHaveLength(1);
    for (const cookie of [teammate.cookie, lead.cookie, admin.cookie]) expect(await learnings(cookie, '/review/learnings')).toEqual([]);

    const second = await reviewed(teamInstallation, repo, lead.cookie);
    expect(second.prompts).toContain(TEAM_NOTE);
    expect(second.findings.map((finding) => finding.title)).not.toContain(OFF_BY_ONE);

    // A member's `/wrong` reply to the App's inline comment on the second: the organization's learning too.
    const [inline] = world.github.inlineComments(repo.full_name, second.number);
    const reply = {
      action: 'created',
      comment: { id: 9_400_000 + second.number, in_reply_to_id: inline!.id, body: `/wrong ${REPLY_NOTE}`, user: commenter(), author_association: 'MEMBER' },
      pull_request: { number: second.number },
      repository: repo,
      installation: { id: teamInstallation },
    };
    expectStatus(await deliver(world.t.app, 'pull_request_review_comment', reply), 200);
    expect((await teamLearnings()).map((learning) => learning.note).sort()).toEqual([REPLY_NOTE, TEAM_NOTE].sort());
    expect(await learnings(lead.cookie, '/review/learnings')).toEqual([]);
  });

  it('the learnings move with the installation: out to its personal owner, and back in', async () => {
    expectStatus(await callAs(world.t.app, lead.cookie, 'PATCH', `/github/installations/${teamInstallation}`, { orgId: null }), 200);
    expect(await teamLearnings()).toEqual([]);
    // The pull requests of an unregistered author are the installer's once personal: so are their learnings.
    expect((await learnings(lead.cookie, '/review/learnings')).map((learning) => learning.note).sort()).toEqual([REPLY_NOTE, TEAM_NOTE].sort());
    const personal = await reviewed(teamInstallation, repo, lead.cookie);
    expect(personal.prompts).toContain(TEAM_NOTE);

    expectStatus(await callAs(world.t.app, lead.cookie, 'PATCH', `/github/installations/${teamInstallation}`, { orgId: org.id }), 200);
    expect((await teamLearnings()).map((learning) => learning.note).sort()).toEqual([REPLY_NOTE, TEAM_NOTE].sort());
    expect(await learnings(lead.cookie, '/review/learnings')).toEqual([]);
  });

  it("never reach another organization's review or a personal one of the same repository", async () => {
    // Another organization with its own installation on the same repository (transferred to its account: the fake serves one installation per repository).
    world.github.uninstall(teamInstallation);
    const theirs = await installed(stranger, repo);
    expectStatus(await callAs(world.t.app, stranger.cookie, 'PATCH', `/github/installations/${theirs}`, { orgId: strangersOrg.id }), 200);
    const elsewhere = await reviewed(theirs, repo, stranger.cookie);
    expect(elsewhere.prompts).not.toContain('TEAM-LEARNING-MARK');
    expect(elsewhere.prompts).not.toContain('TEAM-REPLY-MARK');
    expect(elsewhere.findings.map((finding) => finding.title)).toContain(OFF_BY_ONE);
    expect(await learnings(stranger.cookie, `/orgs/${strangersOrg.id}/review/learnings`)).toEqual([]);

    // The lead's own personal installation of the same repository (transferred again).
    world.github.uninstall(theirs);
    const mine = await installed(lead, repo);
    const personal = await reviewed(mine, repo, lead.cookie);
    expect(personal.prompts).not.toContain('TEAM-LEARNING-MARK');
    expect(personal.findings.map((finding) => finding.title)).toContain(OFF_BY_ONE);

    // A stranger cannot teach the organization: its pull requests are 404 to them.
    expectStatus(await callAs(world.t.app, stranger.cookie, 'PATCH', `/review/${teamFinding.prId}/findings/${teamFinding.id}`, { verdict: 'wrong', note: 'STRANGER-MARK' }), 404);
    expect((await teamLearnings()).map((learning) => learning.note)).not.toContain('STRANGER-MARK');
  });

  it('reads for members, deletes for admins: a non-member 404, a member 403, another space 404', async () => {
    const [learning] = await teamLearnings();
    const url = `/orgs/${org.id}/review/learnings/${learning!.id}`;
    const outsider = await createAccount(world.t.app, world.t.outbox);
    expectStatus(await callAs(world.t.app, outsider.cookie, 'GET', `/orgs/${org.id}/review/learnings`), 404);
    expectStatus(await callAs(world.t.app, outsider.cookie, 'DELETE', url), 404);
    expectStatus(await callAs(world.t.app, stranger.cookie, 'DELETE', url), 404);
    // Another organization's admin, through their own organization's path: not theirs.
    expectStatus(await callAs(world.t.app, stranger.cookie, 'DELETE', `/orgs/${strangersOrg.id}/review/learnings/${learning!.id}`), 404);
    // The personal path never reaches an organization's learning, even for its owner.
    expectStatus(await callAs(world.t.app, lead.cookie, 'DELETE', `/review/learnings/${learning!.id}`), 404);
    expectStatus(await callAs(world.t.app, teammate.cookie, 'DELETE', url), 403);
    expectStatus(await callAs(world.t.app, teammate.cookie, 'DELETE', `/orgs/${org.id}/review/learnings/not-a-uuid`), 403);
    expect(await teamLearnings()).toHaveLength(2);

    expectStatus(await callAs(world.t.app, admin.cookie, 'DELETE', url), 204);
    expect((await teamLearnings()).map((item) => item.id)).not.toContain(learning!.id);
    expectStatus(await callAs(world.t.app, admin.cookie, 'DELETE', url), 404);
    expectStatus(await callAs(world.t.app, admin.cookie, 'DELETE', `/orgs/${org.id}/review/learnings/not-a-uuid`), 400);
    expectStatus(await callAs(world.t.app, undefined, 'GET', `/orgs/${org.id}/review/learnings`), 401);
  });
});
