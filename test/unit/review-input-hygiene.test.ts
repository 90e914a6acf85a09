import { describe, expect, it } from 'vitest';
import { renderChunk } from '../../src/review/prepare/chunking.js';
import { parseUnifiedDiff } from '../../src/review/prepare/diff/parse-unified-diff.js';
import { withoutLayoutChanges } from '../../src/review/prepare/layout-changes.js';
import { prepareReview } from '../../src/review/prepare/prepare-review.js';
import { skipReason } from '../../src/review/prepare/skip-rules.js';
import { selectFindings } from '../../src/review/findings/select-findings.js';
import { carryOverFindings } from '../../src/review/findings/carry-over.js';
import {
  CRLF_TO_LF,
  fileDiff,
  MINIFIED_BUNDLE,
  newFileDiff,
  PEM_BUNDLE,
  PYTHON_INDENTATION,
  TEXT_MODE_PDF,
  WHITESPACE_BESIDE_REAL,
} from '../helpers/input-hygiene-fixtures.js';

const BUDGET = { tokenBudget: 8_000 };

/** What the model reads, all chunks together. */
function sent(diff: string, options = {}): string {
  return prepareReview(diff, { ...BUDGET, ...options })
    .chunks.map(renderChunk)
    .join('');
}

const finding = (file: string, line: number) => ({ file, line, endLine: line, severity: 'MAJOR' as const, confidence: 90, title: `at ${line}`, comment: 'c' });

describe('what reaches the model: layout-only changes', () => {
  it('skips a file converted from CRLF to LF as line endings only', () => {
    const prepared = prepareReview(CRLF_TO_LF, BUDGET);
    expect(prepared.skipped).toEqual([{ path: 'src/Shop/Cart.cs', reason: 'line endings only' }]);
    expect(prepared.chunks).toEqual([]);
    expect(prepared.coverage).toEqual({ files: 1, reviewableFiles: 0, lines: 12, reviewableLines: 0 });
  });

  it('sends only the real change of a file whose other hunk is whitespace only, numbered as in the new file', () => {
    const prepared = prepareReview(WHITESPACE_BESIDE_REAL, BUDGET);
    expect(prepared.skipped).toEqual([]);
    // Partly skipped: the file is reviewed, the layout-only lines are listed apart and not counted as reviewable.
    expect(prepared.skippedChanges).toEqual([{ path: 'src/billing/tax.ts', reason: 'whitespace only', lines: 8 }]);
    expect(prepared.coverage).toEqual({ files: 1, reviewableFiles: 1, lines: 10, reviewableLines: 2 });
    expect(renderChunk(prepared.chunks[0]!)).toBe(
      [
        '## src/billing/tax.ts (modified)',
        '@@ -18,5 +18,5 @@ export function tax(total: number, rate: number) {',
        '18  function applyRate(total: number, rate: number) {',
        '19    // rate is a fraction',
        '20    const rounded = round(total);',
        '-  return total;',
        '21 +  return total * rate;',
        '22  }',
        '',
      ].join('\n'),
    );
  });

  it('anchors findings to the lines sent: on the real change they stay, on the re-indented hunk they are outside the diff', () => {
    const { reviewable } = prepareReview(WHITESPACE_BESIDE_REAL, BUDGET);
    const { findings, counts } = selectFindings([finding('src/billing/tax.ts', 21), finding('src/billing/tax.ts', 3)], reviewable);
    expect(findings.map((kept) => kept.line)).toEqual([21]);
    expect(counts.outsideDiff).toBe(1);
    // Every line sent is a line of the original hunks, so GitHub accepts a comment on it.
    const original = new Set(parseUnifiedDiff(WHITESPACE_BESIDE_REAL)[0]!.hunks.flatMap((hunk) => hunk.lines.map((line) => line.newLine)));
    for (const hunk of reviewable[0]!.hunks) for (const line of hunk.lines) if (line.newLine !== undefined) expect(original.has(line.newLine)).toBe(true);
  });

  it('carries an earlier finding on a re-indented line through a push, as on untouched code', () => {
    const { changes, files } = prepareReview(WHITESPACE_BESIDE_REAL, BUDGET);
    const earlier = [{ ...finding('src/billing/tax.ts', 3), endLine: 3 }];
    expect(carryOverFindings(earlier, changes).map((kept) => kept.line)).toEqual([3]);
    expect(carryOverFindings(earlier, files)).toEqual([]);
  });

  it('keeps an indentation change in Python as a real change', () => {
    const prepared = prepareReview(PYTHON_INDENTATION, BUDGET);
    expect(prepared.skipped).toEqual([]);
    expect(prepared.skippedChanges).toEqual([]);
    expect(sent(PYTHON_INDENTATION)).toContain('-            job.start()\n12 +        job.start()\n');
  });

  it('still drops line-ending-only changes in indentation-sensitive files, and trailing spaces', () => {
    const yaml = fileDiff('deploy/app.yaml', [{ header: '@@ -1,2 +1,2 @@', lines: ['-name: app\r', '-replicas: 2   ', '+name: app', '+replicas: 2'] }]);
    expect(prepareReview(yaml, BUDGET).skipped).toEqual([{ path: 'deploy/app.yaml', reason: 'whitespace only' }]);
    const makefile = fileDiff('Makefile', [{ header: '@@ -1,2 +1,2 @@', lines: [' build:', '-\tgo build', '+    go build'] }]);
    expect(skipReason(parseUnifiedDiff(makefile)[0]!)).toBeNull();
  });

  it('treats the missing newline at the end of a file as a line ending', () => {
    const diff = fileDiff('src/end.ts', [{ header: '@@ -1,2 +1,2 @@', lines: [' a();', '-b();', '\\ No newline at end of file', '+b();'] }]);
    expect(prepareReview(diff, BUDGET).skipped).toEqual([{ path: 'src/end.ts', reason: 'line endings only' }]);
  });

  it('in a run of changed lines, keeps real pairs as changes and turns layout pairs into context with both numbers', () => {
    const diff = fileDiff('src/run.ts', [{ header: '@@ -5,3 +5,3 @@', lines: ['-a(1);\r', '-b(2);', '-c(3);\r', '+a(1);', '+b(20);', '+c(3);'] }]);
    const { file, lineEndings, whitespace } = withoutLayoutChanges(parseUnifiedDiff(diff)[0]!);
    expect({ lineEndings, whitespace }).toEqual({ lineEndings: 4, whitespace: 0 });
    expect(file.hunks).toEqual([
      {
        oldStart: 5,
        oldLines: 3,
        newStart: 5,
        newLines: 3,
        heading: '',
        lines: [
          { kind: 'context', text: 'a(1);', oldLine: 5, newLine: 5 },
          { kind: 'del', text: 'b(2);', oldLine: 6 },
          { kind: 'add', text: 'b(20);', newLine: 6 },
          { kind: 'context', text: 'c(3);', oldLine: 7, newLine: 7 },
        ],
      },
    ]);
    expect({ additions: file.additions, deletions: file.deletions }).toEqual({ additions: 1, deletions: 1 });
  });

  it('cuts a long converted hunk down to three lines of context around its one real edit', () => {
    const old = Array.from({ length: 40 }, (_, index) => `line${index + 1}();`);
    const now = old.map((line, index) => (index === 19 ? 'changed();' : line));
    const diff = fileDiff('src/long.ts', [{ header: '@@ -1,40 +1,40 @@', lines: [...old.map((line) => `-${line}\r`), ...now.map((line) => `+${line}`)] }]);
    const prepared = prepareReview(diff, BUDGET);
    expect(prepared.skippedChanges).toEqual([{ path: 'src/long.ts', reason: 'line endings only', lines: 78 }]);
    expect(sent(diff)).toBe(['## src/long.ts (modified)', '@@ -17,7 +17,7 @@', '17  line17();', '18  line18();', '19  line19();', '-line20();', '20 +changed();', '21  line21();', '22  line22();', '23  line23();', ''].join('\n'));
  });
});

describe('what reaches the model: data and generated files by content', () => {
  it('skips a PEM certificate bundle, a minified bundle under a neutral path and a text-mode PDF, each with its reason', () => {
    const prepared = prepareReview([PEM_BUNDLE, MINIFIED_BUNDLE, TEXT_MODE_PDF, PYTHON_INDENTATION].join(''), BUDGET);
    expect(prepared.skipped).toEqual([
      { path: 'certs/trust-store.txt', reason: 'certificate bundle' },
      { path: 'website/static/lib/app.js', reason: 'minified' },
      { path: 'design/logo.ai', reason: 'binary content' },
    ]);
    expect(prepared.reviewable.map((file) => file.path)).toEqual(['app/jobs.py']);
  });

  it('keeps a private key in view: committing one is a finding', () => {
    const key = newFileDiff('deploy/server.pem', ['-----BEGIN PRIVATE KEY-----', 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7', '-----END PRIVATE KEY-----']);
    expect(skipReason(parseUnifiedDiff(key)[0]!)).toBeNull();
  });

  it('skips source maps, bundler output and released libraries by content', () => {
    const reason = (diff: string) => skipReason(parseUnifiedDiff(diff)[0]!);
    expect(reason(newFileDiff('public/assets/main.json', ['{"version":3,"sources":["../src/a.ts"],"names":[],"mappings":"AAAA"}']))).toBe('source map');
    expect(reason(newFileDiff('site/js/app.js', ['/******/ (() => { // webpackBootstrap', '/******/ \tvar __webpack_modules__ = ({});', 'console.log(1);']))).toBe('bundled code');
    expect(reason(newFileDiff('site/js/jquery.js', ['/*!', ' * jQuery JavaScript Library v3.7.1', ' */', '(function (global) {', '})(window);']))).toBe('bundled code');
    expect(reason(newFileDiff('site/js/app.js', ['export const a = 1;', '//# sourceMappingURL=app.js.map']))).toBe('bundled code');
    // A project's own license header carries no release version.
    expect(reason(newFileDiff('src/app.js', ['/**', ' * @license Copyright Google LLC', ' */', 'export const a = 1;']))).toBeNull();
  });

  it('skips a file of mostly unprintable characters, and a non-script file of very long lines', () => {
    const reason = (diff: string) => skipReason(parseUnifiedDiff(diff)[0]!);
    expect(reason(newFileDiff('assets/font.dat', ['ab\u0001\u0002\u0003\ufffd\ufffdcd\u0000\u0004']))).toBe('binary content');
    // Tabs and form feeds are text; one stray control character in 20 is under the 10% share.
    expect(reason(newFileDiff('notes/plain.txt', ['\tindented\fpage', 'seventeen letters\u0007', 'and more text here']))).toBeNull();
    expect(reason(newFileDiff('assets/half.dat', ['\u0001\u009f\ufffd\r', 'text']))).toBe('binary content');
    expect(reason(newFileDiff('data/points.csv', ['1,2,3,4,5,6,7,8,9,10,'.repeat(200)]))).toBe('very long lines');
  });

  it('judges line lengths on files, not on an edit that adds one long line', () => {
    const edit = fileDiff('src/app.js', [{ header: '@@ -1,1 +1,1 @@', lines: ['-const message = "short";', `+const message = "${'a long message '.repeat(12)}";`] }]);
    expect(skipReason(parseUnifiedDiff(edit)[0]!)).toBeNull();
  });
});

describe('the size limit and the include matcher', () => {
  const big = newFileDiff('src/huge.ts', Array.from({ length: 400 }, (_, index) => `export const value${index} = ${index};`));

  it('skips a file whose diff is over the limit as too large', () => {
    const prepared = prepareReview(big, { ...BUDGET, maxFileDiffBytes: 4_000 });
    expect(prepared.skipped).toEqual([{ path: 'src/huge.ts', reason: 'too large' }]);
    expect(prepareReview(big, { ...BUDGET, maxFileDiffBytes: 1_000_000 }).skipped).toEqual([]);
  });

  it('reviews what include names despite its size or content; binary and deleted files stay skipped', () => {
    const include = (path: string) => path !== 'src/other.ts';
    expect(prepareReview(big, { ...BUDGET, maxFileDiffBytes: 4_000, include }).skipped).toEqual([]);
    expect(prepareReview(PEM_BUNDLE, { ...BUDGET, include }).skipped).toEqual([]);
    const binary = 'diff --git a/logo.png b/logo.png\nindex 1111111..2222222 100644\nBinary files a/logo.png and b/logo.png differ\n';
    const deleted = 'diff --git a/src/gone.ts b/src/gone.ts\ndeleted file mode 100644\nindex 1111111..0000000\n--- a/src/gone.ts\n+++ /dev/null\n@@ -1 +0,0 @@\n-gone();\n';
    expect(prepareReview(binary + deleted, { ...BUDGET, include }).skipped).toEqual([
      { path: 'logo.png', reason: 'binary file' },
      { path: 'src/gone.ts', reason: 'deleted file' },
    ]);
  });

  it('measures a file as it would be sent: a large conversion to LF with one real edit is reviewed', () => {
    const old = Array.from({ length: 400 }, (_, index) => `export const value${index} = ${index};`);
    const now = old.map((line, index) => (index === 200 ? 'export const value200 = -1;' : line));
    const converted = fileDiff('src/values.ts', [{ header: '@@ -1,400 +1,400 @@', lines: [...old.map((line) => `-${line}\r`), ...now.map((line) => `+${line}`)] }]);
    const prepared = prepareReview(converted, { ...BUDGET, maxFileDiffBytes: 4_000 });
    expect(prepared.skipped).toEqual([]);
    expect(prepared.coverage.reviewableLines).toBe(2);
  });

  it('measures each file of a git diff in bytes as received', () => {
    const [file] = parseUnifiedDiff(big);
    expect(file!.diffBytes).toBe(Buffer.byteLength(big));
  });
});

describe('copies', () => {
  it('are shown with their source, as renames are', () => {
    const copy = fileDiff('src/b.ts', [{ header: '@@ -1,2 +1,2 @@', lines: [' one();', '-two();', '+three();'] }], ['similarity index 90%', 'copy from src/a.ts', 'copy to src/b.ts'], 'src/a.ts');
    const [file] = parseUnifiedDiff(copy);
    expect(file).toMatchObject({ path: 'src/b.ts', oldPath: 'src/a.ts', status: 'copied', additions: 1, deletions: 1 });
    expect(sent(copy)).toContain('## src/b.ts (copied from src/a.ts)\n@@ -1,2 +1,2 @@\n1  one();\n-two();\n2 +three();\n');
  });
});
