import { describe, expect, it } from 'vitest';
import { assembleUnifiedDiff, gitlabLineCode, quotePath } from '../../src/code-hosts/gitlab/gitlab-diff.js';
import type { GitLabDiffEntry } from '../../src/code-hosts/gitlab/gitlab-schemas.js';
import { parseUnifiedDiff } from '../../src/review/prepare/diff/parse-unified-diff.js';

/** Entries as GitLab's `GET /projects/:id/merge_requests/:iid/diffs` returns them (its documented example's fields). */
const modified: GitLabDiffEntry = {
  old_path: 'README',
  new_path: 'README',
  a_mode: '100644',
  b_mode: '100644',
  diff: '@@ -1 +1 @@\n-Title\n+README\n',
  new_file: false,
  renamed_file: false,
  deleted_file: false,
};
const added: GitLabDiffEntry = {
  old_path: 'VERSION',
  new_path: 'VERSION',
  a_mode: '0',
  b_mode: '100644',
  diff: '@@ -0,0 +1 @@\n+1.9.7\n',
  new_file: true,
  renamed_file: false,
  deleted_file: false,
};
const deleted: GitLabDiffEntry = {
  old_path: 'old.txt',
  new_path: 'old.txt',
  a_mode: '100644',
  b_mode: '0',
  diff: '@@ -1,2 +0,0 @@\n-one\n-two\n',
  new_file: false,
  renamed_file: false,
  deleted_file: true,
};
const renamedAndChanged: GitLabDiffEntry = {
  old_path: 'lib/old_name.rb',
  new_path: 'lib/new_name.rb',
  a_mode: '100644',
  b_mode: '100644',
  diff: '@@ -1,3 +1,3 @@\n class A\n-  def x; end\n+  def y; end\n end\n',
  new_file: false,
  renamed_file: true,
  deleted_file: false,
};
const renamedOnly: GitLabDiffEntry = { ...renamedAndChanged, old_path: 'a.txt', new_path: 'b.txt', diff: '' };
const binary: GitLabDiffEntry = {
  old_path: 'logo.png',
  new_path: 'logo.png',
  a_mode: '100644',
  b_mode: '100644',
  diff: 'Binary files a/logo.png and b/logo.png differ\n',
  new_file: false,
  renamed_file: false,
  deleted_file: false,
};
const modeOnly: GitLabDiffEntry = { ...modified, old_path: 'run.sh', new_path: 'run.sh', b_mode: '100755', diff: '' };
const noNewline: GitLabDiffEntry = { ...modified, old_path: 'x.txt', new_path: 'x.txt', diff: '@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n\\ No newline at end of file' };

describe('a GitLab diff assembled into git diff text', () => {
  it('writes the headers git writes for modified, new, deleted, renamed, mode-only and binary files', () => {
    expect(assembleUnifiedDiff([modified, added, deleted, renamedOnly, binary, modeOnly])).toBe(
      [
        'diff --git a/README b/README',
        '--- a/README',
        '+++ b/README',
        '@@ -1 +1 @@',
        '-Title',
        '+README',
        'diff --git a/VERSION b/VERSION',
        'new file mode 100644',
        '--- /dev/null',
        '+++ b/VERSION',
        '@@ -0,0 +1 @@',
        '+1.9.7',
        'diff --git a/old.txt b/old.txt',
        'deleted file mode 100644',
        '--- a/old.txt',
        '+++ /dev/null',
        '@@ -1,2 +0,0 @@',
        '-one',
        '-two',
        'diff --git a/a.txt b/b.txt',
        'rename from a.txt',
        'rename to b.txt',
        'diff --git a/logo.png b/logo.png',
        'Binary files a/logo.png and b/logo.png differ',
        'diff --git a/run.sh b/run.sh',
        'old mode 100644',
        'new mode 100755',
        '',
      ].join('\n'),
    );
  });

  it("is read by the project's diff parser with each file's status, paths and line numbers", () => {
    const files = parseUnifiedDiff(assembleUnifiedDiff([modified, added, deleted, renamedAndChanged, renamedOnly, binary, noNewline]));
    expect(files.map((file) => [file.path, file.oldPath, file.status, file.binary, file.parseError])).toEqual([
      ['README', 'README', 'modified', false, undefined],
      ['VERSION', null, 'added', false, undefined],
      ['old.txt', 'old.txt', 'deleted', false, undefined],
      ['lib/new_name.rb', 'lib/old_name.rb', 'renamed', false, undefined],
      ['b.txt', 'a.txt', 'renamed', false, undefined],
      ['logo.png', 'logo.png', 'modified', true, undefined],
      ['x.txt', 'x.txt', 'modified', false, undefined],
    ]);
    const renamed = files[3]!;
    expect(renamed.hunks[0]!.lines).toEqual([
      { kind: 'context', text: 'class A', oldLine: 1, newLine: 1 },
      { kind: 'del', text: '  def x; end', oldLine: 2 },
      { kind: 'add', text: '  def y; end', newLine: 2 },
      { kind: 'context', text: 'end', oldLine: 3, newLine: 3 },
    ]);
    expect(files[1]!.hunks[0]!.lines).toEqual([{ kind: 'add', text: '1.9.7', newLine: 1 }]);
    expect(files[6]!.hunks[0]!.lines.map((line) => line.noNewlineAtEnd)).toEqual([true, true]);
  });

  it('quotes paths as git does, and the parser reads them back', () => {
    expect(quotePath('a/plain path.ts')).toBe('a/plain path.ts');
    expect(quotePath('a/café "x".md')).toBe('"a/caf\\303\\251 \\"x\\".md"');
    const files = parseUnifiedDiff(assembleUnifiedDiff([{ ...modified, old_path: 'docs/café.md', new_path: 'docs/café.md' }, { ...added, old_path: 'with space.txt', new_path: 'with space.txt' }]));
    expect(files.map((file) => [file.path, file.status])).toEqual([
      ['docs/café.md', 'modified'],
      ['with space.txt', 'added'],
    ]);
  });

  it("keeps a diff that already carries its ---/+++ lines (GitLab's unidiff=true) as it is", () => {
    const text = assembleUnifiedDiff([{ ...modified, diff: '--- a/README\n+++ b/README\n@@ -1 +1 @@\n-Title\n+README\n' }]);
    expect(text.match(/^--- /gm)).toHaveLength(1);
    expect(parseUnifiedDiff(text)[0]!.hunks).toHaveLength(1);
  });

  it("computes GitLab's line code: SHA-1 of the path, old line, new line", () => {
    expect(gitlabLineCode('README', 1, 2)).toBe('69e27356ef629022720d868ab0c0e3394775b6c1_1_2');
  });
});
