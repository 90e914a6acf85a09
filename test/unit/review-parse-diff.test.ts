import { describe, expect, it } from 'vitest';
import { parseUnifiedDiff } from '../../src/review/prepare/diff/parse-unified-diff.js';
import { generateSyntheticDiff } from '../helpers/synthetic-diff.js';

/** Lines joined with LF; context lines that are empty in the file are written ' ' on purpose. */
const diff = (...lines: string[]) => `${lines.join('\n')}\n`;

const PULL_REQUEST = diff(
  'diff --git a/src/user.ts b/src/user.ts',
  'index 3b18e51..a9c4f2d 100644',
  '--- a/src/user.ts',
  '+++ b/src/user.ts',
  "@@ -1,6 +1,7 @@ import { db } from './db';",
  " import { db } from './db';",
  ' ',
  ' export async function loadUser(id: string) {',
  "-  const row = await db.query('select * from users where id = ' + id);",
  "+  const row = await db.query('select * from users where id = $1', [id]);",
  '+  if (!row) return null;',
  '   return row;',
  ' }',
  '@@ -20,3 +21,3 @@ export function formatName(user: User) {',
  ' export function formatName(user: User) {',
  "-  return user.first + ' ' + user.last;",
  '+  return `${user.first} ${user.last}`;',
  ' }',
  '\\ No newline at end of file',
  'diff --git a/src/new-feature.ts b/src/new-feature.ts',
  'new file mode 100644',
  'index 0000000..e69de29',
  '--- /dev/null',
  '+++ b/src/new-feature.ts',
  '@@ -0,0 +1,3 @@',
  '+export function feature() {',
  '+  return 42;',
  '+}',
  'diff --git a/src/old.ts b/src/old.ts',
  'deleted file mode 100644',
  'index e69de29..0000000',
  '--- a/src/old.ts',
  '+++ /dev/null',
  '@@ -1,2 +0,0 @@',
  '-export const old = 1;',
  '-export const older = 2;',
  'diff --git a/docs/guide.md b/docs/handbook.md',
  'similarity index 100%',
  'rename from docs/guide.md',
  'rename to docs/handbook.md',
  'diff --git a/src/api/client.ts b/src/http/client.ts',
  'similarity index 90%',
  'rename from src/api/client.ts',
  'rename to src/http/client.ts',
  'index 1111111..2222222 100644',
  '--- a/src/api/client.ts',
  '+++ b/src/http/client.ts',
  '@@ -5,3 +5,3 @@ export class Client {',
  '   constructor(private base: string) {}',
  '-  get(path: string) { return fetch(this.base + path); }',
  '+  get(path: string) { return fetch(new URL(path, this.base)); }',
  ' }',
  'diff --git a/assets/logo.png b/assets/logo.png',
  'index 5d41402..7e8f9a0 100644',
  'Binary files a/assets/logo.png and b/assets/logo.png differ',
  'diff --git a/scripts/run.sh b/scripts/run.sh',
  'old mode 100644',
  'new mode 100755',
);

describe('parseUnifiedDiff', () => {
  const files = parseUnifiedDiff(PULL_REQUEST);
  const byPath = (path: string) => files.find((file) => file.path === path)!;

  it('reads every file with its status, paths and counts', () => {
    expect(files.map((file) => [file.path, file.oldPath, file.status, file.binary, file.additions, file.deletions])).toEqual([
      ['src/user.ts', 'src/user.ts', 'modified', false, 3, 2],
      ['src/new-feature.ts', null, 'added', false, 3, 0],
      ['src/old.ts', 'src/old.ts', 'deleted', false, 0, 2],
      ['docs/handbook.md', 'docs/guide.md', 'renamed', false, 0, 0],
      ['src/http/client.ts', 'src/api/client.ts', 'renamed', false, 1, 1],
      ['assets/logo.png', 'assets/logo.png', 'modified', true, 0, 0],
      ['scripts/run.sh', 'scripts/run.sh', 'modified', false, 0, 0],
    ]);
  });

  it('gives every line explicit old and new numbers', () => {
    const [first] = byPath('src/user.ts').hunks;
    expect(first!.lines.map((line) => [line.kind, line.oldLine, line.newLine])).toEqual([
      ['context', 1, 1],
      ['context', 2, 2],
      ['context', 3, 3],
      ['del', 4, undefined],
      ['add', undefined, 4],
      ['add', undefined, 5],
      ['context', 5, 6],
      ['context', 6, 7],
    ]);
    expect(first!.lines[1]!.text).toBe('');
    expect(first!.lines[4]!.text).toBe("  const row = await db.query('select * from users where id = $1', [id]);");
    expect(first).toMatchObject({ oldStart: 1, oldLines: 6, newStart: 1, newLines: 7, heading: "import { db } from './db';" });
  });

  it('numbers the second hunk from its header and keeps the `\\ No newline` marker on its line', () => {
    const second = byPath('src/user.ts').hunks[1]!;
    expect(second.heading).toBe('export function formatName(user: User) {');
    expect(second.lines.map((line) => [line.kind, line.oldLine, line.newLine])).toEqual([
      ['context', 20, 21],
      ['del', 21, undefined],
      ['add', undefined, 22],
      ['context', 22, 23],
    ]);
    expect(second.lines.at(-1)).toMatchObject({ text: '}', noNewlineAtEnd: true });
    expect(second.lines.filter((line) => line.noNewlineAtEnd)).toHaveLength(1);
  });

  it('numbers new and deleted files from line 1', () => {
    expect(byPath('src/new-feature.ts').hunks[0]!.lines.map((line) => line.newLine)).toEqual([1, 2, 3]);
    expect(byPath('src/old.ts').hunks[0]!.lines.map((line) => line.oldLine)).toEqual([1, 2]);
  });

  it('parses a CRLF diff exactly like the LF one', () => {
    expect(parseUnifiedDiff(PULL_REQUEST.replace(/\n/g, '\r\n'))).toEqual(files);
  });

  it('drops the CR of CRLF content lines in an LF diff', () => {
    const [file] = parseUnifiedDiff(diff('diff --git a/a.txt b/a.txt', '--- a/a.txt', '+++ b/a.txt', '@@ -1 +1 @@', '-one\r', '+two\r'));
    expect(file!.hunks[0]!.lines.map((line) => line.text)).toEqual(['one', 'two']);
  });

  it('returns no files for empty input', () => {
    expect(parseUnifiedDiff('')).toEqual([]);
    expect(parseUnifiedDiff('\n  \n')).toEqual([]);
  });

  it('keeps the other files when one section is malformed, and counts the bad one', () => {
    const broken = diff(
      'diff --git a/src/bad.ts b/src/bad.ts',
      '--- a/src/bad.ts',
      '+++ b/src/bad.ts',
      '@@ -1,5 +1,5 @@',
      '-one',
      '+two',
      'diff --git a/src/good.ts b/src/good.ts',
      '--- a/src/good.ts',
      '+++ b/src/good.ts',
      '@@ -1 +1 @@',
      '-a',
      '+b',
    );
    const [bad, good] = parseUnifiedDiff(broken);
    expect(bad).toMatchObject({ path: 'src/bad.ts', hunks: [], additions: 1, deletions: 1 });
    expect(bad!.parseError).toMatch(/hunk/i);
    expect(good).toMatchObject({ path: 'src/good.ts', additions: 1, deletions: 1 });
    expect(good!.parseError).toBeUndefined();
  });

  it('unquotes paths git quoted (non-ASCII) and keeps paths with spaces', () => {
    const quoted = diff(
      'diff --git "a/docs/r\\303\\251sum\\303\\251.md" "b/docs/r\\303\\251sum\\303\\251.md"',
      'index 1..2 100644',
      '--- "a/docs/r\\303\\251sum\\303\\251.md"',
      '+++ "b/docs/r\\303\\251sum\\303\\251.md"',
      '@@ -1 +1 @@',
      '-old',
      '+new',
      'diff --git a/my docs/read me.md b/my docs/read me.md',
      'index 1..2 100644',
      '--- a/my docs/read me.md',
      '+++ b/my docs/read me.md',
      '@@ -1 +1 @@',
      '-old',
      '+new',
    );
    expect(parseUnifiedDiff(quoted).map((file) => file.path)).toEqual(['docs/résumé.md', 'my docs/read me.md']);
  });

  it('reads a plain unified diff without git headers, and `git diff --binary` output', () => {
    const plain = diff('--- a/lib/x.py\t2024-01-01', '+++ b/lib/x.py\t2024-01-02', '@@ -3,2 +3,2 @@ def run():', '-    return 1', '+    return 2', '     pass');
    expect(parseUnifiedDiff(plain)).toMatchObject([{ path: 'lib/x.py', status: 'modified', additions: 1, deletions: 1 }]);
    const binaryPatch = diff('diff --git a/font.woff b/font.woff', 'new file mode 100644', 'index 0000000..3f2a1bc', 'GIT binary patch', 'literal 12', 'zcmZ?wbhEHb', '', 'literal 0', 'HcmV?d00001');
    expect(parseUnifiedDiff(binaryPatch)).toMatchObject([{ path: 'font.woff', status: 'added', binary: true, hunks: [] }]);
  });

  // Its speed is measured by `npm run bench review-prepare`.
  it('parses a 200,000-changed-line diff whole', () => {
    const parsed = parseUnifiedDiff(generateSyntheticDiff({ files: 2000, changedLines: 200_000 }));
    expect(parsed).toHaveLength(2000);
    expect(parsed.reduce((sum, file) => sum + file.additions + file.deletions, 0)).toBe(200_000);
  });
});
