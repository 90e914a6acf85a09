import { describe, expect, it } from 'vitest';
import { parseUnifiedDiff } from '../../src/review/prepare/diff/parse-unified-diff.js';
import { renderFile, renderHunkSlice, renderLine } from '../../src/review/prepare/diff/render-for-model.js';
import { countTokens, countTokensUpTo, estimateTokens, MAX_CHARS_PER_TOKEN } from '../../src/review/prepare/tokens.js';

const [file] = parseUnifiedDiff(
  [
    'diff --git a/src/api/client.ts b/src/http/client.ts',
    'similarity index 90%',
    'rename from src/api/client.ts',
    'rename to src/http/client.ts',
    '--- a/src/api/client.ts',
    '+++ b/src/http/client.ts',
    '@@ -10,5 +10,6 @@ export class Client {',
    '   async get(path: string) {',
    '-    const res = await fetch(this.base + path);',
    '+    const url = new URL(path, this.base);',
    '+    const res = await fetch(url);',
    '     if (!res.ok) throw new HttpError(res.status);',
    '     return res.json();',
    '   }',
    '',
  ].join('\n'),
);

describe('rendering for the model', () => {
  it('puts the new-file number on every added and context line, and none on deleted lines', () => {
    expect(renderFile(file!)).toBe(
      [
        '## src/http/client.ts (renamed from src/api/client.ts)',
        '@@ -10,5 +10,6 @@ export class Client {',
        '10    async get(path: string) {',
        '-    const res = await fetch(this.base + path);',
        '11 +    const url = new URL(path, this.base);',
        '12 +    const res = await fetch(url);',
        '13      if (!res.ok) throw new HttpError(res.status);',
        '14      return res.json();',
        '15    }',
        '',
      ].join('\n'),
    );
  });

  it('recomputes the hunk header of a slice so a part stays unambiguous', () => {
    const hunk = file!.hunks[0]!;
    expect(renderHunkSlice(hunk, 2, 4).split('\n')[0]).toBe('@@ -11,0 +11,2 @@ export class Client {');
    expect(renderHunkSlice(hunk, 1, 2).split('\n')[0]).toBe('@@ -11,1 +10,0 @@ export class Client {');
    expect(renderHunkSlice(hunk, 3, 6).split('\n')[0]).toBe('@@ -12,2 +12,3 @@ export class Client {');
  });

  it('prints new files with the unified `-0,0` convention', () => {
    const [added] = parseUnifiedDiff('diff --git a/a.ts b/a.ts\nnew file mode 100644\n--- /dev/null\n+++ b/a.ts\n@@ -0,0 +1,2 @@\n+one\n+two\n');
    expect(renderFile(added!)).toBe('## a.ts (new file)\n@@ -0,0 +1,2 @@\n1 +one\n2 +two\n');
  });

  it('cuts a very long line with a visible marker, never inside a surrogate pair', () => {
    const long = renderLine({ kind: 'add', text: 'x'.repeat(5000), newLine: 7 }, 100);
    expect(long).toBe(`7 +${'x'.repeat(100)}… [4900 more characters]\n`);
    const emoji = renderLine({ kind: 'add', text: `${'a'.repeat(9)}😀tail`, newLine: 1 }, 10);
    expect(emoji).toBe(`1 +${'a'.repeat(9)}… [6 more characters]\n`);
  });
});

describe('token counting', () => {
  it('counts o200k tokens exactly, treating special-token text as plain text', () => {
    expect(countTokens('')).toBe(0);
    expect(countTokens('hello world')).toBe(2);
    expect(countTokens('the <|endoftext|> marker')).toBeGreaterThan(3);
  });

  it('adds up over rendered pieces (file header, hunk headers, lines), which chunking relies on', () => {
    const pieces = [
      '## src/a.ts (modified)\n',
      '@@ -1,3 +1,3 @@ function x() {\n',
      '1  // comment ending in a slash /\n',
      '-   /* leading spaces and a slash */\n',
      '2 +\tconst 名前 = "ünïcödé" + 42;   \n',
      '3  \n',
      '-\n',
      '4 +}\n',
      '## b.py (new file)\n',
      '@@ -0,0 +1,1 @@\n',
      '1 +print("<|endoftext|>")\n',
    ];
    expect(countTokens(pieces.join(''))).toBe(pieces.reduce((sum, piece) => sum + countTokens(piece), 0));
  });

  it('does not tokenize a text far over the limit, and counts exactly near it', () => {
    const huge = 'word '.repeat(200_000);
    // The estimate, not the exact count (which differs): the text was never tokenized.
    expect(countTokensUpTo(huge, 1000)).toBeGreaterThan(1000);
    expect(countTokensUpTo(huge, 1000)).toBe(estimateTokens(huge));
    const near = 'word '.repeat(900);
    expect(near.length).toBeLessThan(1000 * MAX_CHARS_PER_TOKEN);
    expect(countTokensUpTo(near, 1000)).toBe(countTokens(near));
    expect(estimateTokens('abcdefgh')).toBe(2);
  });

  it('decides a text over the limit by its first lines, and counts one that fits exactly however long', () => {
    const code = Array.from({ length: 400 }, (_, at) => `  const value${at} = compute(input[${at}], options);\n`).join('');
    const whole = countTokens(code);
    expect(whole).toBeGreaterThan(1000);
    const over = countTokensUpTo(code, 2000);
    // Over the limit, and less than the whole: the lines after the first 12,000 characters were not read.
    expect(code.length).toBeLessThan(2000 * MAX_CHARS_PER_TOKEN);
    expect(over).toBeGreaterThan(2000);
    expect(over).toBeLessThan(whole);
    expect(countTokensUpTo(code, whole)).toBe(whole);
    // Long tokens (8.5 characters a token): its first lines do not decide it, and it is counted whole.
    const rules = `${'='.repeat(16)}\n`.repeat(40);
    const ruleTokens = countTokens(rules);
    expect(rules.length).toBeGreaterThan(6 * ruleTokens);
    expect(countTokensUpTo(rules, ruleTokens)).toBe(ruleTokens);
  });
});
