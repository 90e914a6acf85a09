import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { pack } from 'tar-stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitHubClient } from '../../src/adapters/github/github-client.js';
import { outlineFile } from '../../src/code-context/outline-file.js';
import { GitHubSnapshotSource } from '../../src/code-hosts/github/github-snapshot-source.js';
import { SnapshotCache } from '../../src/code-context/snapshot/snapshot-cache.js';
import { safeRepositoryPath } from '../../src/code-context/snapshot/snapshot-paths.js';
import { FakeGitHub } from '../fakes/fake-github.js';
import { createGitFixture } from '../helpers/git-fixture.js';

const FILES = {
  'src/app.py': 'from .util import helper\n\n\ndef main():\n    return helper(1)\n',
  'src/util.py': 'def helper(value):\n    """Doubles."""\n    return value * 2\n',
  'src/other.py': 'def unrelated():\n    return 0\n',
  'README.md': '# Demo\n',
};

describe('repository snapshots from the code host', () => {
  let github: FakeGitHub;
  let client: GitHubClient;
  let fixture: ReturnType<typeof createGitFixture>;
  let workspace: string;
  const commit = () => fixture.shas[0]!;
  const source = (repository = 'octo/demo', reader = 'user:reader') => new GitHubSnapshotSource(client, github.url, repository, reader, (call) => call('gho_reader'));
  const requests = (pattern: RegExp) => github.requests.filter((request) => pattern.test(request.path));

  beforeAll(async () => {
    github = await new FakeGitHub().start();
    client = new GitHubClient({ webUrl: github.url, apiUrl: github.url });
    fixture = createGitFixture([FILES]);
    github.code.serveRepository('octo/demo', fixture.dir);
    workspace = mkdtempSync(join(tmpdir(), 'snapshots-'));
  });
  afterAll(async () => {
    await github.stop();
    rmSync(fixture.dir, { recursive: true, force: true });
    rmSync(workspace, { recursive: true, force: true });
  });

  it('reads the tarball once with the diff token, and answers files from disk afterwards', async () => {
    const cache = new SnapshotCache({ root: join(workspace, 'a'), maxBytes: 1024 * 1024 });
    github.requests.length = 0;
    const [first, second] = await Promise.all([cache.open(source(), commit(), ['src/app.py']), cache.open(source(), commit(), ['src/app.py'])]);
    expect(first.mode).toBe('tarball');
    expect(second).toBe(first);
    expect(first.files.map((file) => file.path).sort()).toEqual(Object.keys(FILES).sort());
    expect(await first.readFile('src/util.py')).toBe(FILES['src/util.py']);
    expect(requests(/\/tarball\//)).toHaveLength(1);
    expect(requests(/\/tarball\//)[0]!.headers.authorization).toBe('Bearer gho_reader');

    const reopened = await new SnapshotCache({ root: join(workspace, 'a'), maxBytes: 1024 * 1024 }).open(source(), commit(), []);
    expect(reopened.mode).toBe('tarball');
    expect(requests(/\/tarball\//)).toHaveLength(1);
  });

  it('a repository the host refuses is not asked for again for a minute (the prefetch and the review step pay it once)', async () => {
    const cache = new SnapshotCache({ root: join(workspace, 'refused'), maxBytes: 1024 * 1024 });
    github.requests.length = 0;
    await expect(cache.open(source('octo/unknown'), commit(), [])).rejects.toThrow();
    const asked = github.requests.length;
    expect(asked).toBeGreaterThan(0);
    await expect(cache.open(source('octo/unknown'), commit(), ['src/app.py'])).rejects.toThrow();
    expect(github.requests).toHaveLength(asked);
    // GitHub's 404 is about the repository for these credentials: their other commits are not asked for either.
    await expect(cache.open(source('octo/unknown'), 'f'.repeat(40), [])).rejects.toThrow();
    expect(github.requests).toHaveLength(asked);
    // Another reader (another installation, another user's token) is asked.
    await expect(cache.open(source('octo/unknown', 'installation:7'), 'f'.repeat(40), [])).rejects.toThrow();
    expect(github.requests.length).toBeGreaterThan(asked);
  });

  it('a host that cannot be reached is remembered for that commit only: the repository\'s other commits are asked for', async () => {
    const cache = new SnapshotCache({ root: join(workspace, 'failing'), maxBytes: 1024 * 1024 });
    const failing = new GitHubSnapshotSource(new GitHubClient({ webUrl: github.url, apiUrl: 'http://127.0.0.1:9' }), github.url, 'octo/demo', 'user:reader', (call) => call(undefined));
    await expect(cache.open(failing, 'a'.repeat(40), [])).rejects.toThrow();
    github.requests.length = 0;
    const snapshot = await cache.open(source(), commit(), []);
    expect(snapshot.mode).toBe('tarball');
  });

  it('several workers building the same snapshot at once each get it, and one folder is left', async () => {
    const root = join(workspace, 'shared');
    const workers = [1, 2, 3].map(() => new SnapshotCache({ root, maxBytes: 1024 * 1024 }));
    const snapshots = await Promise.all(workers.map((worker) => worker.open(source(), commit(), [])));
    for (const snapshot of snapshots) expect(await snapshot.readFile('src/app.py')).toBe(FILES['src/app.py']);
    expect(readdirSync(join(root, new URL(github.url).host.replace(':', '_'), 'octo', 'demo'))).toEqual([commit()]);
    expect(readdirSync(join(root, '.tmp'))).toEqual([]);
  });

  it('over REVIEW_SNAPSHOT_MAX_BYTES, reads only the changed files and what they import, then others on demand', async () => {
    github.requests.length = 0;
    const snapshot = await new SnapshotCache({ root: join(workspace, 'small'), maxBytes: 50 }).open(source(), commit(), ['src/app.py']);
    expect(snapshot.mode).toBe('files');
    expect(requests(/\/tarball\//)).toHaveLength(0);
    expect(requests(/\/contents\//).map((request) => request.path).sort()).toEqual(['/repos/octo/demo/contents/src/app.py', '/repos/octo/demo/contents/src/util.py']);
    expect(await snapshot.readFile('src/other.py')).toBe(FILES['src/other.py']);
    expect(requests(/\/contents\//)).toHaveLength(3);
    // Read once: the second read is from disk.
    expect(await snapshot.readFile('src/other.py')).toBe(FILES['src/other.py']);
    expect(requests(/\/contents\//)).toHaveLength(3);
    expect(await snapshot.readFile('missing.py')).toBeNull();
  });

  it('a hostile archive: links, ../ and absolute paths, a binary .py, a 5 MB minified line are skipped or contained; the first entry of a path wins', async () => {
    const top = `octo-hostile-${commit().slice(0, 7)}`;
    const archive = pack();
    archive.entry({ name: `${top}/ok.py` }, 'def ok():\n    return 1\n');
    archive.entry({ name: `${top}/../../escape.txt` }, 'outside');
    archive.entry({ name: '/tmp/absolute.txt' }, 'absolute');
    archive.entry({ name: `${top}/link.py`, type: 'symlink', linkname: '/etc/passwd' });
    archive.entry({ name: `${top}/hard.py`, type: 'link', linkname: `${top}/ok.py` });
    archive.entry({ name: `${top}/linked-dir`, type: 'symlink', linkname: '../../..' });
    archive.entry({ name: `${top}/linked-dir/through.txt` }, 'through a link');
    archive.entry({ name: `${top}/binary.py` }, Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 0, 1, 2, 3]));
    archive.entry({ name: `${top}/bundle.min.js` }, 'var a=' + '1+'.repeat(2_500_000) + '1;');
    archive.entry({ name: `${top}/a` }, 'file');
    archive.entry({ name: `${top}/a/b` }, 'under a file');
    archive.entry({ name: `${top}/d/e.py` }, 'x = 1\n');
    archive.entry({ name: `${top}/d` }, 'a file named as a folder');
    archive.entry({ name: `${top}/ok.py` }, 'a second entry of the same path');
    archive.finalize();
    const chunks: Buffer[] = [];
    for await (const chunk of archive) chunks.push(chunk as Buffer);
    github.code.serveRepository('octo/hostile', fixture.dir);
    github.code.setArchive('octo/hostile', commit(), gzipSync(Buffer.concat(chunks)));

    const root = join(workspace, 'hostile', 'cache');
    const snapshot = await new SnapshotCache({ root, maxBytes: 64 * 1024 * 1024 }).open(source('octo/hostile'), commit(), ['ok.py']);
    expect(snapshot.files.map((file) => file.path).sort()).toEqual(['a', 'binary.py', 'd/e.py', 'linked-dir/through.txt', 'ok.py']);
    expect(await snapshot.readFile('ok.py')).toContain('def ok');
    expect(await snapshot.readFile('a')).toBe('file');
    expect(await snapshot.readFile('d/e.py')).toBe('x = 1\n');
    // One pack of the files' bytes: no path of the archive named a file on disk.
    const commitFolder = join(root, new URL(github.url).host.replace(':', '_'), 'octo', 'hostile', commit());
    expect(readdirSync(commitFolder).sort()).toEqual(['meta.json', 'tree.pack']);
    expect(await snapshot.readFile('../../escape.txt')).toBeNull();
    expect(await snapshot.readFile('link.py')).toBeNull();
    expect(existsSync(join(workspace, 'hostile', 'escape.txt'))).toBe(false);
    expect(existsSync(join(workspace, 'escape.txt'))).toBe(false);
    expect(existsSync(join(root, '..', '..', 'through.txt'))).toBe(false);
    const binary = await snapshot.readFile('binary.py');
    expect(await outlineFile('binary.py', binary!)).toEqual({ ok: false, reason: 'binary' });
  });

  it('an archive larger than its listing said stops unpacking at the cap and falls back to files', async () => {
    const top = `octo-grown-${commit().slice(0, 7)}`;
    const archive = pack();
    for (let index = 0; index < 5; index++) archive.entry({ name: `${top}/big${index}.txt` }, 'x'.repeat(400));
    archive.finalize();
    const chunks: Buffer[] = [];
    for await (const chunk of archive) chunks.push(chunk as Buffer);
    github.code.serveRepository('octo/grown', fixture.dir);
    github.code.setArchive('octo/grown', commit(), gzipSync(Buffer.concat(chunks)));
    const root = join(workspace, 'grown');
    const snapshot = await new SnapshotCache({ root, maxBytes: 1000 }).open(source('octo/grown'), commit(), ['src/app.py']);
    expect(snapshot.mode).toBe('files');
    expect(await snapshot.readFile('src/util.py')).toBe(FILES['src/util.py']);
    expect(await snapshot.readFile('big0.txt')).toBeNull();
  });

  it('evicts snapshots unused for the idle time, and the least recently used over the size', async () => {
    const root = join(workspace, 'evict');
    const cache = new SnapshotCache({ root, maxBytes: 1024 * 1024, idleMs: 60_000 });
    await cache.open(source(), commit(), []);
    const folder = join(root, new URL(github.url).host.replace(':', '_'), 'octo', 'demo', commit());
    await new SnapshotCache({ root, maxBytes: 1024 * 1024, idleMs: 60_000 }).sweep(Date.now() + 120_000);
    expect(existsSync(folder)).toBe(false);

    await cache.open(source(), commit(), []);
    await new SnapshotCache({ root, maxBytes: 1024 * 1024, maxCacheBytes: 10 }).sweep();
    expect(existsSync(folder)).toBe(false);
  });

  it('refuses names that are not a repository and a commit', async () => {
    const cache = new SnapshotCache({ root: join(workspace, 'names'), maxBytes: 1024 });
    await expect(cache.open(source('../../etc'), commit(), [])).rejects.toThrow('not a repository name');
    await expect(cache.open(source(), '../HEAD', [])).rejects.toThrow('not a repository name');
  });
});

describe('safe repository paths', () => {
  it('keeps paths inside the repository and refuses the rest', () => {
    expect(safeRepositoryPath('src/./a.py')).toBe('src/a.py');
    expect(safeRepositoryPath('src//a.py')).toBe('src/a.py');
    for (const path of ['', '/etc/passwd', '../a', 'src/../../a', 'a\\..\\b', 'a\0b', '.git/config', 'src/..']) expect(safeRepositoryPath(path), path).toBeUndefined();
  });
});
