import { execFileSync } from 'node:child_process';
import { copyFileSync, readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CodeIndex } from '../../src/code-context/code-index.js';
import { gatherChunkContext } from '../../src/code-context/gather-context.js';
import { RepositorySnapshot } from '../../src/code-context/snapshot/repository-snapshot.js';
import { fitContext } from '../../src/review/ask/context-section.js';
import { changedLinesOf } from '../../src/review/prepare/chunk-lines.js';
import { prepareReview } from '../../src/review/prepare/prepare-review.js';
import { createGitFixture } from '../helpers/git-fixture.js';

/** Real commits (test/fixtures/code-context/commits/SOURCES.md): the files before, the commit's patch. */
const COMMITS = new URL('../fixtures/code-context/commits/', import.meta.url);
const folders: string[] = [];
afterAll(() => folders.forEach((folder) => rmSync(folder, { recursive: true, force: true })));

/** The commit replayed in a git fixture: its diff, and a snapshot of the head as the cache holds it. */
function replay(name: string, files: Record<string, string>) {
  const before = Object.fromEntries(Object.entries(files).map(([path, fixture]) => [path, readFileSync(new URL(`${name}/${fixture}`, COMMITS), 'utf8')]));
  const { dir } = createGitFixture([before]);
  folders.push(dir);
  const patch = join(dir, '.commit.patch');
  copyFileSync(fileURLToPath(new URL(`${name}/commit.patch.txt`, COMMITS)), patch);
  execFileSync('git', ['apply', patch], { cwd: dir });
  rmSync(patch);
  const diff = execFileSync('git', ['diff'], { cwd: dir, encoding: 'utf8' });
  const listed = Object.keys(files).map((path) => ({ path, size: readFileSync(join(dir, path)).length }));
  return { diff, index: new CodeIndex(new RepositorySnapshot('tarball', 'head', dir, listed, undefined)) };
}

/** The prompt's context for the commit's single chunk, with a focused review's room at 32k. */
async function contextOf(name: string, files: Record<string, string>) {
  const { diff, index } = replay(name, files);
  const { chunks } = prepareReview(diff, { tokenBudget: 12_000 });
  expect(chunks).toHaveLength(1);
  const blocks = await gatherChunkContext(index, changedLinesOf(chunks[0]!), { definitions: true, callers: false });
  return fitContext(blocks, 10_000, 'head').section ?? '';
}

describe('the code around real commits', () => {
  it('requests 6f66281a: the whole changed method, and `has_read` from `_types.py` through `from . import _types as _t`', async () => {
    const section = await contextOf('requests-6f66281a', { 'src/requests/models.py': 'models.py.txt', 'src/requests/_types.py': '_types.py.txt' });
    expect(section).toMatch(/about="enclosing method RequestEncodingMixin\._encode_params" read-only>\n\d+ {5}@staticmethod\n/);
    expect(section).toContain('163         elif _t.has_read(data):\n');
    expect(section).toMatch(/path="src\/requests\/_types.py" lines="\d+-\d+" about="definition of has_read" read-only>\n(\d+ .*\n)*\d+ def has_read\(/);
  });

  it('express a479419b: res.send widened to its function, and `setCharset` from lib/utils.js through require()', async () => {
    const section = await contextOf('express-a479419b', { 'lib/response.js': 'response.js.txt', 'lib/utils.js': 'utils.js.txt' });
    expect(section).toMatch(/about="enclosing function res\.send" read-only>\n(\d+ .*\n)*\d+ res\.send = function send\(body\) \{\n/);
    expect(section).toMatch(/path="lib\/utils.js" lines="\d+-\d+" about="definition of exports\.setCharset" read-only>\n(\d+ .*\n)*\d+ exports\.setCharset = function setCharset\(type, charset\) \{\n/);
  });
});
