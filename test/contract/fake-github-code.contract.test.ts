import { Octokit } from '@octokit/rest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeGitHub } from '../fakes/fake-github.js';
import { createGitFixture } from '../helpers/git-fixture.js';

/** The fake's code endpoints, read by Octokit as it reads GitHub's. */
describe("the fake GitHub's tarball, trees, blobs and contents", () => {
  let github: FakeGitHub;
  let fixture: ReturnType<typeof createGitFixture>;
  let octokit: Octokit;
  beforeAll(async () => {
    github = await new FakeGitHub().start();
    fixture = createGitFixture([{ 'README.md': '# Demo\n', 'src/app.py': 'def main():\n    return 1\n' }, { 'src/app.py': 'def main():\n    return 2\n' }]);
    github.code.serveRepository('octo/demo', fixture.dir);
    octokit = new Octokit({ auth: 'gho_token', baseUrl: github.url });
  });
  afterAll(async () => {
    await github.stop();
    rmSync(fixture.dir, { recursive: true, force: true });
  });

  it('downloadTarballArchive follows the redirect to a gzipped tar of the commit under one top folder', async () => {
    const { data, status } = await octokit.repos.downloadTarballArchive({ owner: 'octo', repo: 'demo', ref: fixture.shas[0]! });
    expect(status).toBe(200);
    const folder = mkdtempSync(join(tmpdir(), 'tarball-'));
    try {
      writeFileSync(join(folder, 'a.tar.gz'), Buffer.from(data as ArrayBuffer));
      const listing = execFileSync('tar', ['-tzf', join(folder, 'a.tar.gz')], { encoding: 'utf8' }).split('\n').filter(Boolean);
      const top = `octo-demo-${fixture.shas[0]!.slice(0, 7)}/`;
      expect(listing).toEqual(expect.arrayContaining([top, `${top}README.md`, `${top}src/app.py`]));
      execFileSync('tar', ['-xzf', join(folder, 'a.tar.gz'), '-C', folder]);
      expect(readFileSync(join(folder, top, 'src/app.py'), 'utf8')).toContain('return 1');
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('getTree lists blobs with sizes (recursive), getBlob answers base64', async () => {
    const { data: tree } = await octokit.git.getTree({ owner: 'octo', repo: 'demo', tree_sha: fixture.shas[1]!, recursive: 'true' });
    expect(tree.truncated).toBe(false);
    const app = tree.tree.find((entry) => entry.path === 'src/app.py');
    expect(app).toMatchObject({ type: 'blob', size: 25, mode: '100644' });
    const { data: blob } = await octokit.git.getBlob({ owner: 'octo', repo: 'demo', file_sha: app!.sha });
    expect(blob.encoding).toBe('base64');
    expect(Buffer.from(blob.content, 'base64').toString()).toBe('def main():\n    return 2\n');
  });

  it('getContent answers a file at a ref as JSON, and raw with the raw media type; 404 for a missing one', async () => {
    const { data } = await octokit.repos.getContent({ owner: 'octo', repo: 'demo', path: 'src/app.py', ref: fixture.shas[0]! });
    expect(data).toMatchObject({ type: 'file', encoding: 'base64', path: 'src/app.py', name: 'app.py' });
    expect(Buffer.from((data as { content: string }).content, 'base64').toString()).toContain('return 1');
    const raw = await octokit.repos.getContent({ owner: 'octo', repo: 'demo', path: 'src/app.py', ref: fixture.shas[1]!, mediaType: { format: 'raw' } });
    expect(raw.data as unknown as string).toContain('return 2');
    await expect(octokit.repos.getContent({ owner: 'octo', repo: 'demo', path: 'nope.txt', ref: fixture.shas[1]! })).rejects.toMatchObject({ status: 404 });
  });
});
