import { describe, expect, it } from 'vitest';
import type { DiffFile } from '../../src/review/prepare/diff/diff-types.js';
import { mapOldLineToNew, touchedNewLines } from '../../src/review/prepare/diff/line-map.js';
import { parseUnifiedDiff } from '../../src/review/prepare/diff/parse-unified-diff.js';
import { selectFindings, type FindingLike } from '../../src/review/findings/select-findings.js';

const diff = (...lines: string[]) => parseUnifiedDiff(`${lines.join('\n')}\n`);

/** A new file of `count` lines. */
const addedFile = (path: string, count: number) => [
  `diff --git a/${path} b/${path}`,
  'new file mode 100644',
  '--- /dev/null',
  `+++ b/${path}`,
  `@@ -0,0 +1,${count} @@`,
  ...Array.from({ length: count }, (_, index) => `+line ${index + 1} of ${path}`),
];

// src/orders.ts shows new lines 10–17 and 42–45.
const FILES = diff(
  'diff --git a/src/orders.ts b/src/orders.ts',
  '--- a/src/orders.ts',
  '+++ b/src/orders.ts',
  '@@ -10,6 +10,8 @@ export async function placeOrder(order: Order) {',
  '   const stock = await inventory.get(order.sku);',
  '   if (stock.count < order.quantity) throw new OutOfStock(order.sku);',
  '   const price = order.quantity * stock.price;',
  '-  await db.insert(order);',
  '+  await db.insert({ ...order, price });',
  '+  stock.count -= order.quantity;',
  '+  await inventory.put(stock);',
  '   return price;',
  ' }',
  '@@ -40,3 +42,4 @@ export function cancel(order: Order) {',
  '   const refund = order.price;',
  '+  order.status = "cancelled";',
  '   return refund;',
  ' }',
  'diff --git a/src/api/client.ts b/src/http/client.ts',
  'similarity index 90%',
  'rename from src/api/client.ts',
  'rename to src/http/client.ts',
  '--- a/src/api/client.ts',
  '+++ b/src/http/client.ts',
  '@@ -5,2 +5,2 @@',
  '-  get(path) { return fetch(this.base + path); }',
  '+  get(path) { return fetch(new URL(path, this.base)); }',
  ' }',
  ...addedFile('a/config.ts', 3),
  ...addedFile('src/web/index.ts', 3),
  ...addedFile('src/cli/index.ts', 3),
);

let counter = 0;
function finding(file: string, line: number, overrides: Partial<FindingLike> = {}): FindingLike {
  counter++;
  return { file, line, endLine: line, severity: 'MAJOR', confidence: 80, title: `Distinct problem number ${counter}`, comment: `Comment ${counter}`, ...overrides };
}

describe('selectFindings: location', () => {
  it('keeps a finding inside a hunk as it is', () => {
    const result = selectFindings([finding('src/orders.ts', 13, { endLine: 15 })], FILES);
    expect(result.findings).toMatchObject([{ file: 'src/orders.ts', line: 13, endLine: 15 }]);
    expect(result.counts).toEqual({ outsideDiff: 0, reanchored: 0, lowConfidence: 0, duplicate: 0, alreadyReported: 0, overLimit: 0 });
  });

  it('re-anchors a range off by up to 3 lines onto the nearest shown line, and drops one farther away', () => {
    const result = selectFindings(
      [finding('src/orders.ts', 19, { endLine: 20 }), finding('src/orders.ts', 7, { endLine: 8 }), finding('src/orders.ts', 6), finding('src/orders.ts', 30)],
      FILES,
    );
    expect(result.findings.map((entry) => [entry.line, entry.endLine])).toEqual([
      [10, 11],
      [17, 17],
    ]);
    expect(result.counts).toMatchObject({ reanchored: 2, outsideDiff: 2 });
  });

  it('clips a range that runs past the end of its hunk', () => {
    const result = selectFindings([finding('src/orders.ts', 16, { endLine: 40 })], FILES);
    expect(result.findings).toMatchObject([{ line: 16, endLine: 17 }]);
    expect(result.counts.reanchored).toBe(1);
  });

  it('drops findings on files the model was not shown', () => {
    const result = selectFindings([finding('src/payments.ts', 12), finding('package-lock.json', 3)], FILES);
    expect(result.findings).toEqual([]);
    expect(result.counts.outsideDiff).toBe(2);
  });

  it('matches paths written with ./, a/, b/, quotes, backslashes, an old name, or a unique suffix', () => {
    const cited = ['./src/orders.ts', 'b/src/orders.ts', '`src/orders.ts`', 'src\\orders.ts', 'orders.ts', 'src/api/client.ts', 'a/config.ts'];
    const result = selectFindings(
      cited.map((file, index) => finding(file, file.includes('client') ? 5 : file.includes('config') ? 2 : 13, { title: `Problem ${index}` })),
      FILES,
    );
    expect(result.findings.map((entry) => entry.file).sort()).toEqual([...Array(5).fill('src/orders.ts'), 'src/http/client.ts', 'a/config.ts'].sort());
    // index.ts is the suffix of two files: ambiguous, so not guessed.
    expect(selectFindings([finding('index.ts', 1)], FILES).counts.outsideDiff).toBe(1);
  });
});

describe('selectFindings: confidence, duplicates, limits', () => {
  it('drops findings under the confidence threshold (default 50, configurable)', () => {
    const findings = [finding('src/orders.ts', 13, { confidence: 49 }), finding('src/orders.ts', 14, { confidence: 50 }), finding('src/orders.ts', 15, { confidence: 70 })];
    expect(selectFindings(findings, FILES).counts.lowConfidence).toBe(1);
    const strict = selectFindings(findings, FILES, { minConfidence: 80 });
    expect(strict.findings).toEqual([]);
    expect(strict.counts.lowConfidence).toBe(3);
  });

  it('drops near-identical findings on overlapping lines, keeping the most severe, across chunks', () => {
    const chunkA = [finding('src/orders.ts', 13, { endLine: 14, severity: 'MINOR', title: 'Missing null check on stock' })];
    const chunkB = [
      finding('src/orders.ts', 14, { severity: 'CRITICAL', title: 'Missing null check for stock!' }),
      finding('src/orders.ts', 14, { title: 'Stock update is not atomic', comment: 'Two orders can both pass the check.' }),
      finding('src/orders.ts', 43, { title: 'Missing null check on stock' }),
      finding('./src/orders.ts', 15, { title: 'Another wording', comment: 'Comment 1' }),
    ];
    const result = selectFindings([...chunkA, ...chunkB], FILES);
    expect(result.findings.map((entry) => [entry.line, entry.severity, entry.title])).toEqual([
      [14, 'CRITICAL', 'Missing null check for stock!'],
      [14, 'MAJOR', 'Stock update is not atomic'],
      [15, 'MAJOR', 'Another wording'],
      [43, 'MAJOR', 'Missing null check on stock'],
    ]);
    expect(result.counts.duplicate).toBe(1);
  });

  it('treats findings with identical comments on overlapping lines as duplicates even when titles differ', () => {
    const comment = 'inventory.put can overwrite a concurrent update because the count is read and written without a lock.';
    const result = selectFindings([finding('src/orders.ts', 15, { title: 'Lost update', comment }), finding('src/orders.ts', 15, { title: 'Race condition', comment })], FILES);
    expect(result.findings).toHaveLength(1);
    expect(result.counts.duplicate).toBe(1);
  });

  it('keeps at most maxFindings, the most severe and confident first, returned in diff order', () => {
    const result = selectFindings(
      [
        finding('src/orders.ts', 43, { severity: 'MINOR' }),
        finding('src/orders.ts', 13, { severity: 'MAJOR', confidence: 60 }),
        finding('src/http/client.ts', 5, { severity: 'CRITICAL' }),
        finding('src/orders.ts', 16, { severity: 'MAJOR', confidence: 95 }),
      ],
      FILES,
      { maxFindings: 2 },
    );
    expect(result.findings.map((entry) => [entry.file, entry.line])).toEqual([
      ['src/orders.ts', 16],
      ['src/http/client.ts', 5],
    ]);
    expect(result.counts.overLimit).toBe(2);
  });

  it('keeps the extra fields of the findings it returns', () => {
    const result = selectFindings([{ ...finding('src/orders.ts', 19), suggestedFix: 'Use a transaction.' }], FILES);
    expect(result.findings[0]).toMatchObject({ line: 17, suggestedFix: 'Use a transaction.' });
  });
});

describe('selectFindings: incremental reviews', () => {
  // The pull request now: three new files.
  const prFiles = diff(...addedFile('src/stock.ts', 60), ...addedFile('src/util.ts', 10), ...addedFile('src/new-name.ts', 10));
  // What the push changed since the last reviewed commit: two lines added at the top of stock.ts,
  // line 20 rewritten, and old-name.ts renamed.
  const pushDiff = diff(
    'diff --git a/src/stock.ts b/src/stock.ts',
    '--- a/src/stock.ts',
    '+++ b/src/stock.ts',
    '@@ -1,2 +1,4 @@',
    '+import { lock } from "./lock";',
    '+',
    ' line 1 of src/stock.ts',
    ' line 2 of src/stock.ts',
    '@@ -19,3 +21,3 @@',
    ' line 21 of src/stock.ts',
    '-old line 20',
    '+line 22 of src/stock.ts',
    ' line 23 of src/stock.ts',
    'diff --git a/src/old-name.ts b/src/new-name.ts',
    'similarity index 100%',
    'rename from src/old-name.ts',
    'rename to src/new-name.ts',
  );
  const previous = [
    { file: 'src/stock.ts', line: 42, title: 'Stock update is not atomic' },
    { file: 'src/stock.ts', line: 20, title: 'Price rounding error' },
    { file: 'src/util.ts', line: 5, endLine: 6, title: 'Unbounded cache growth', comment: 'The map is never pruned.' },
    { file: 'src/old-name.ts', line: 3, title: 'Timeout is never cleared' },
  ];
  const incremental = { previous, pushDiff };

  it('drops a repeat on code the push did not touch, following lines that moved and files that were renamed', () => {
    const result = selectFindings(
      [
        finding('src/stock.ts', 44, { title: 'Stock update not atomic' }),
        finding('src/util.ts', 5, { title: 'Cache grows without bound', comment: 'The map is never pruned.' }),
        finding('src/new-name.ts', 3, { title: 'Timeout is never cleared' }),
      ],
      prFiles,
      { incremental },
    );
    expect(result.findings).toEqual([]);
    expect(result.counts.alreadyReported).toBe(3);
  });

  it('keeps a repeat on lines this push changed, a new problem at a known place, and everything without history', () => {
    const findings = [finding('src/stock.ts', 22, { title: 'Price rounding error' }), finding('src/stock.ts', 44, { title: 'Unbounded retry loop' }), finding('src/stock.ts', 50, { title: 'Stock update is not atomic' })];
    const result = selectFindings(findings, prFiles, { incremental });
    expect(result.findings.map((entry) => entry.line)).toEqual([22, 44, 50]);
    expect(result.counts.alreadyReported).toBe(0);
    expect(selectFindings([finding('src/stock.ts', 44, { title: 'Stock update is not atomic' })], prFiles).findings).toHaveLength(1);
  });

  it('maps old lines through a diff and knows which new lines it touched', () => {
    const stock = pushDiff[0]!;
    expect([1, 2, 3, 19, 20, 21, 42].map((line) => mapOldLineToNew(stock, line))).toEqual([3, 4, 5, 21, null, 23, 44]);
    expect([...touchedNewLines(stock)].sort((a, b) => a - b)).toEqual([1, 2, 21, 22]);
    const deletion: DiffFile = diff('diff --git a/x b/x', '--- a/x', '+++ b/x', '@@ -4,3 +4,1 @@', ' keep', '-gone 1', '-gone 2')[0]!;
    expect(touchedNewLines(deletion)).toEqual(new Set([4, 5]));
    expect(mapOldLineToNew(deletion, 9)).toBe(7);
  });
});
