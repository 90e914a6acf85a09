import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitLabClient, type GitLabTarget } from '../../src/code-hosts/gitlab/gitlab-client.js';
import { GitLabConnectionBrokenError } from '../../src/code-hosts/gitlab/gitlab-errors.js';
import { EndpointPolicy } from '../../src/lib/endpoint-policy.js';
import { SnapshotCache } from '../../src/code-context/snapshot/snapshot-cache.js';
import { GitLabChangeReader } from '../../src/code-hosts/gitlab/gitlab-reader.js';
import { ACCESS, FakeGitLab } from '../fakes/fake-gitlab.js';
import { createGitFixture } from '../helpers/git-fixture.js';

const FILES = {
  'src/app.py': 'from .util import helper\n\n\ndef main():\n    return helper(1)\n',
  'src/util.py': 'def helper(value):\n    """Doubles."""\n    return value * 2\n',
  'src/other.py': 'def unrelated():\n    return 0\n',
  'README.md': '# Demo\n',
};

/** A merge request's repository snapshot from GitLab's archive, tree and raw files APIs (decisions.md §12 Reading). */
describe('GitLab repository snapshots', () => {
  let gitlab: FakeGitLab;
  let fixture: ReturnType<typeof createGitFixture>;
  let workspace: string;
  let projectId: number;
  let target: GitLabTarget;
  const client = new GitLabClient({ request: new EndpointPolicy(true).request });
  const commit = () => fixture.shas[0]!;
  const source = (baseUrl = gitlab.url) => new GitLabChangeReader(client, { target: { ...target, baseUrl }, projectId, iid: 1 }).snapshotSource();
  const requests = (pattern: RegExp) => gitlab.requests.filter((request) => pattern.test(request.path));

  beforeAll(async () => {
    gitlab = await new FakeGitLab().start();
    const owner = { id: 31, username: 'owner', name: 'Owner' };
    projectId = gitlab.addProject('acme/platform/demo').id;
    gitlab.addMember(projectId, owner, ACCESS.developer);
    target = { baseUrl: gitlab.url, token: gitlab.issueToken(owner, ['read_api']) };
    fixture = createGitFixture([FILES]);
    gitlab.setRepository(projectId, fixture.dir);
    workspace = mkdtempSync(join(tmpdir(), 'gitlab-snapshots-'));
  });
  afterAll(async () => {
    await gitlab.stop();
    rmSync(fixture.dir, { recursive: true, force: true });
    rmSync(workspace, { recursive: true, force: true });
  });

  it('unpacks the archive once under the instance and project id, and answers files from disk afterwards', async () => {
    const root = join(workspace, 'tarball');
    const snapshot = await new SnapshotCache({ root, maxBytes: 1024 * 1024 }).open(source(), commit(), ['src/app.py']);
    expect(snapshot.mode).toBe('tarball');
    expect(snapshot.files.map((file) => file.path).sort()).toEqual(Object.keys(FILES).sort());
    expect(await snapshot.readFile('src/util.py')).toBe(FILES['src/util.py']);
    expect(requests(/repository\/archive\.tar\.gz$/)).toHaveLength(1);
    expect(requests(/repository\/files\//)).toHaveLength(0);
    expect(readdirSync(join(root, new URL(gitlab.url).host.replace(':', '_'), 'projects', String(projectId)))).toEqual([commit()]);
  });

  it('over REVIEW_SNAPSHOT_MAX_BYTES (applied while unpacking: the tree has no sizes), reads the changed files and their imports, others on demand', async () => {
    const before = requests(/repository\/files\//).length;
    const snapshot = await new SnapshotCache({ root: join(workspace, 'files'), maxBytes: 50 }).open(source(), commit(), ['src/app.py']);
    expect(snapshot.mode).toBe('files');
    expect(snapshot.index.has('src/other.py')).toBe(true);
    expect(requests(/repository\/files\//).slice(before).map((request) => decodeURIComponent(request.path.split('/files/')[1]!))).toEqual(['src/app.py/raw', 'src/util.py/raw']);
    expect(await snapshot.readFile('README.md')).toBe(FILES['README.md']);
    expect(await snapshot.readFile('missing.py')).toBeNull();
  });

  it('a self-managed instance on a sub-path gets its own cache folder', () => {
    const onSubPath = source('https://git.example.com:8443/gitlab/');
    expect(onSubPath.host).toBe('git.example.com_8443_gitlab');
    expect(onSubPath.repository).toBe(`projects/${projectId}`);
  });

  it('a refused token goes through the reader failure (the connection breaks)', async () => {
    const refused = new GitLabChangeReader(client, { target: { ...target, token: 'glpat-revoked' }, projectId, iid: 1 }).snapshotSource();
    await expect(new SnapshotCache({ root: join(workspace, 'refused'), maxBytes: 1024 }).open(refused, commit(), [])).rejects.toBeInstanceOf(GitLabConnectionBrokenError);
  });
});
