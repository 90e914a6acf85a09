import { createAppAuth } from '@octokit/auth-app';
import { request } from '@octokit/request';
import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeGitHubApp, generateAppKey } from '../fakes/fake-github-app.js';

const DIFF = `diff --git a/src/a.ts b/src/a.ts
--- a/src/a.ts
+++ b/src/a.ts
@@ -1,2 +1,3 @@
 const a = 1;
+const b = 2;
 export { a };
`;

/** The fake speaks GitHub's protocol: Octokit's own clients, pointed at it, work unchanged. */
describe('the fake GitHub App host', () => {
  let github: FakeGitHubApp;
  beforeAll(async () => {
    github = await new FakeGitHubApp().start();
    github.install(11, ['octo/repo']);
    github.openPull('octo/repo', 7, 'a'.repeat(40), DIFF);
  });
  afterAll(() => github.stop());

  const auth = (privateKey = github.key.privateKey, appId = github.appId) => createAppAuth({ appId, privateKey, request: request.defaults({ baseUrl: github.url }) });

  it('@octokit/auth-app obtains an installation token, and @octokit/rest creates a review with it', async () => {
    const { token } = await auth()({ type: 'installation', installationId: 11 });
    const octokit = new Octokit({ auth: token, baseUrl: github.url });
    const { data } = await octokit.pulls.createReview({
      owner: 'octo',
      repo: 'repo',
      pull_number: 7,
      commit_id: 'a'.repeat(40),
      event: 'COMMENT',
      body: 'Looks fine',
      comments: [{ path: 'src/a.ts', line: 2, side: 'RIGHT', body: 'A comment on the added line' }],
    });
    expect(data.state).toBe('COMMENTED');
    const comments = await octokit.paginate(octokit.pulls.listReviewComments, { owner: 'octo', repo: 'repo', pull_number: 7 });
    expect(comments).toEqual([expect.objectContaining({ path: 'src/a.ts', line: 2, body: 'A comment on the added line' })]);
  });

  it('refuses a JWT signed with another key, or for another App', async () => {
    await expect(auth(generateAppKey().privateKey)({ type: 'installation', installationId: 11 })).rejects.toMatchObject({ status: 401 });
    await expect(auth(github.key.privateKey, '1')({ type: 'installation', installationId: 11 })).rejects.toMatchObject({ status: 401 });
    expect(github.refusedJwts).toEqual([expect.stringContaining('signature'), expect.stringContaining('iss')]);
  });

  it("answers GitHub's 422 for a comment on a line outside the diff, and 401 without an installation token", async () => {
    const { token } = await auth()({ type: 'installation', installationId: 11 });
    const octokit = new Octokit({ auth: token, baseUrl: github.url });
    await expect(
      octokit.pulls.createReview({ owner: 'octo', repo: 'repo', pull_number: 7, event: 'COMMENT', comments: [{ path: 'src/a.ts', line: 9, side: 'RIGHT', body: 'x' }] }),
    ).rejects.toMatchObject({ status: 422 });
    await expect(new Octokit({ auth: 'gho_someone', baseUrl: github.url }).issues.listComments({ owner: 'octo', repo: 'repo', issue_number: 7 })).rejects.toMatchObject({ status: 401 });
  });
});
