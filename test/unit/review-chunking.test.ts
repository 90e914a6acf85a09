import { beforeAll, describe, expect, it } from 'vitest';
import { chunkFiles, computeCoverage, MIN_TOKEN_BUDGET, renderChunk, type ReviewChunk } from '../../src/review/prepare/chunking.js';
import type { DiffFile, DiffHunk } from '../../src/review/prepare/diff/diff-types.js';
import { parseUnifiedDiff } from '../../src/review/prepare/diff/parse-unified-diff.js';
import { renderFile } from '../../src/review/prepare/diff/render-for-model.js';
import { prepareReview, prepareReviewInSlices } from '../../src/review/prepare/prepare-review.js';
import { buildReviewPrompt, DEFAULT_OUTPUT_RESERVE, promptOverheadTokens } from '../../src/review/ask/prompts.js';
import { generateSyntheticDiff } from '../helpers/synthetic-diff.js';
import { countTokens } from '../../src/review/prepare/tokens.js';

/** A file of `hunks` hunks, each adding `perHunk` distinct lines and deleting one, 100 lines apart. */
function sourceFile(path: string, hunks: number, perHunk: number): DiffFile {
  const list: DiffHunk[] = [];
  let shift = 0;
  for (let index = 0; index < hunks; index++) {
    const oldStart = 1 + index * 100;
    const newStart = oldStart + shift;
    const lines: DiffHunk['lines'] = [
      { kind: 'context', text: `function step${index}(input) {`, oldLine: oldStart, newLine: newStart },
      { kind: 'del', text: `  return legacy${index}(input);`, oldLine: oldStart + 1 },
      ...Array.from({ length: perHunk }, (_, line) => ({
        kind: 'add' as const,
        text: `  const value${index}_${line} = await service${line % 7}.fetch(input.id, { retry: ${line % 3} });`,
        newLine: newStart + 1 + line,
      })),
      { kind: 'context', text: '}', oldLine: oldStart + 2, newLine: newStart + 1 + perHunk },
    ];
    list.push({ oldStart, oldLines: 3, newStart, newLines: perHunk + 2, heading: `export class Pipeline${index} {`, lines });
    shift += perHunk - 1;
  }
  return { path, oldPath: path, status: 'modified', binary: false, hunks: list, additions: hunks * perHunk, deletions: hunks };
}

/** Each changed line's identity (file, hunk, line index) and how many chunks hold it. */
function placements(chunks: readonly ReviewChunk[]): Map<string, number> {
  const seen = new Map<string, number>();
  for (const chunk of chunks) {
    for (const segment of chunk.segments) {
      for (const slice of segment.slices) {
        const hunk = segment.file.hunks[slice.hunk]!;
        for (let index = slice.from; index < slice.to; index++) {
          if (hunk.lines[index]!.kind === 'context') continue;
          const key = `${segment.file.path}#${slice.hunk}#${index}`;
          seen.set(key, (seen.get(key) ?? 0) + 1);
        }
      }
    }
  }
  return seen;
}

function changedLineKeys(files: readonly DiffFile[]): string[] {
  return files.flatMap((file) =>
    file.hunks.flatMap((hunk, hunkIndex) => hunk.lines.flatMap((line, index) => (line.kind === 'context' ? [] : [`${file.path}#${hunkIndex}#${index}`]))),
  );
}

function expectEveryLineOnce(files: readonly DiffFile[], chunks: readonly ReviewChunk[]) {
  const seen = placements(chunks);
  const expected = changedLineKeys(files);
  expect(seen.size).toBe(expected.length);
  for (const key of expected) if (seen.get(key) !== 1) expect.fail(`${key} is in ${seen.get(key) ?? 0} chunks`);
}

/** Changed lines as the model sees them: `<n> +…` and `-…` lines of the rendered text. */
const renderedChangedLines = (text: string) => text.split('\n').filter((line) => /^\d+ \+/.test(line) || line.startsWith('-')).length;

describe('chunking', () => {
  it('puts small files together, in diff order, with exact token counts', () => {
    const files = ['a.ts', 'b.ts', 'c.ts'].map((path) => sourceFile(path, 1, 3));
    const chunks = chunkFiles(files, { tokenBudget: 4000 });
    expect(chunks).toHaveLength(1);
    expect(chunks[0]!.files).toEqual(['a.ts', 'b.ts', 'c.ts']);
    expect(renderChunk(chunks[0]!)).toBe(files.map((file) => renderFile(file)).join(''));
    expect(countTokens(renderChunk(chunks[0]!))).toBe(chunks[0]!.tokens);
    expect(chunks[0]!.description).toBe('3 files, 12 changed lines: a.ts, b.ts, c.ts');
  });

  it('keeps a file whole in the next chunk rather than splitting it to fill the room left', () => {
    const small = sourceFile('src/small.ts', 1, 30);
    const medium = sourceFile('src/medium.ts', 4, 20);
    const tiny = sourceFile('src/tiny.ts', 1, 3);
    const budget = Math.floor(countTokens(renderFile(medium)) * 1.2);
    const chunks = chunkFiles([small, medium, tiny], { tokenBudget: budget });
    expect(chunks.map((chunk) => chunk.files)).toEqual([['src/small.ts'], ['src/medium.ts', 'src/tiny.ts']]);
    expect(chunks.flatMap((chunk) => chunk.segments).every((segment) => segment.parts === 1)).toBe(true);
  });

  it('splits a file larger than the budget at hunk boundaries, repeating its header', () => {
    const big = sourceFile('src/big.ts', 12, 30);
    const budget = Math.floor(countTokens(renderFile(big)) / 3);
    const chunks = chunkFiles([big], { tokenBudget: budget });
    expect(chunks.length).toBeGreaterThanOrEqual(3);
    for (const chunk of chunks) {
      const text = renderChunk(chunk);
      expect(countTokens(text)).toBe(chunk.tokens);
      expect(chunk.tokens).toBeLessThanOrEqual(budget);
      for (const slice of chunk.segments[0]!.slices) expect(slice).toMatchObject({ from: 0, to: big.hunks[slice.hunk]!.lines.length });
    }
    expect(renderChunk(chunks[0]!).startsWith('## src/big.ts (modified)\n')).toBe(true);
    expect(renderChunk(chunks[1]!).startsWith('## src/big.ts (modified, continued)\n')).toBe(true);
    expect(chunks[1]!.description).toMatch(/^1 file, \d+ changed lines: src\/big\.ts \(part 2 of \d+, lines \d+–\d+\)$/);
    expectEveryLineOnce([big], chunks);
  });

  it('splits one hunk larger than the budget by lines, each part under a recomputed hunk header', () => {
    const huge = sourceFile('src/table.ts', 1, 3000);
    const budget = 6000;
    const chunks = chunkFiles([huge], { tokenBudget: budget });
    expect(chunks.length).toBeGreaterThan(5);
    let expectedNext = 2;
    for (const chunk of chunks) {
      const text = renderChunk(chunk);
      expect(countTokens(text)).toBe(chunk.tokens);
      expect(chunk.tokens).toBeLessThanOrEqual(budget);
      const [header, hunkHeader, firstLine] = text.split('\n');
      expect(header).toMatch(/^## src\/table\.ts \(modified(, continued)?\)$/);
      expect(hunkHeader).toMatch(/^@@ -\d+,\d+ \+\d+,\d+ @@ export class Pipeline0 \{$/);
      // The hunk header's new start is the first numbered line of the part.
      const newStart = Number(/\+(\d+),/.exec(hunkHeader!)![1]);
      const firstNumber = Number(/^(\d+) /.exec(firstLine!)?.[1] ?? Number.NaN);
      if (!Number.isNaN(firstNumber)) expect(newStart).toBe(firstNumber);
      // Parts continue where the previous one stopped.
      if (!Number.isNaN(firstNumber) && chunk.index > 0) expect(firstNumber).toBe(expectedNext);
      expectedNext = chunk.segments[0]!.newLines![1] + 1;
    }
    expectEveryLineOnce([huge], chunks);
    expect(chunks.reduce((sum, chunk) => sum + renderedChangedLines(renderChunk(chunk)), 0)).toBe(3001);
  });

  it('cuts a single line longer than a whole chunk until it fits, and still covers it', () => {
    const [blob] = parseUnifiedDiff(`diff --git a/data.ts b/data.ts\n--- a/data.ts\n+++ b/data.ts\n@@ -1 +1 @@\n-x\n+export const DATA = "${'é9ç'.repeat(4000)}";\n`);
    const chunks = chunkFiles([blob!], { tokenBudget: MIN_TOKEN_BUDGET, maxLineChars: 20_000 });
    for (const chunk of chunks) expect(countTokens(renderChunk(chunk))).toBeLessThanOrEqual(MIN_TOKEN_BUDGET);
    expectEveryLineOnce([blob!], chunks);
    expect(chunks.map(renderChunk).join('')).toMatch(/1 \+export const DATA = ".*… \[\d+ more characters\]\n/);
  });

  it('refuses a budget too small to be useful', () => {
    expect(() => chunkFiles([], { tokenBudget: 100 })).toThrow(RangeError);
    expect(() => chunkFiles([], { tokenBudget: Number.NaN })).toThrow(RangeError);
    expect(chunkFiles([], { tokenBudget: 1000 })).toEqual([]);
  });

  it('computes exact coverage over all and reviewable files', () => {
    const prepared = prepareReview(
      [
        'diff --git a/yarn.lock b/yarn.lock',
        '--- a/yarn.lock',
        '+++ b/yarn.lock',
        '@@ -1,2 +1,2 @@',
        '-a@1:',
        '+a@2:',
        ' next',
        'diff --git a/src/app.ts b/src/app.ts',
        '--- a/src/app.ts',
        '+++ b/src/app.ts',
        '@@ -1,2 +1,3 @@',
        '-old();',
        '+first();',
        '+second();',
        ' done();',
        '',
      ].join('\n'),
      { tokenBudget: 2000 },
    );
    expect(prepared.coverage).toEqual({ files: 2, reviewableFiles: 1, lines: 5, reviewableLines: 3 });
    expect(computeCoverage([], [])).toEqual({ files: 0, reviewableFiles: 0, lines: 0, reviewableLines: 0 });
    expect(prepared.chunks.reduce((sum, chunk) => sum + chunk.changedLines, 0)).toBe(3);
  });
});

describe('a 2,000-file, 200,000-line pull request at a 32k context', () => {
  const contextLength = 32_000;
  let diff: string;
  beforeAll(() => {
    diff = generateSyntheticDiff({ files: 2000, changedLines: 200_000 });
  });

  it('covers every reviewable file and every changed line exactly once, with no chunk over budget', () => {
    // What the pipeline does: the chunk budget is what the prompt around a chunk leaves of the context.
    // Its speed is measured by `npm run bench review-prepare`.
    let tokenBudget = 0;
    const prepared = prepareReview(diff, {
      tokenBudget: ({ skipped, reviewable }) => {
        const overhead = promptOverheadTokens({ mode: 'focused', chunkCount: 99, skipped, reviewablePaths: reviewable.map((file) => file.path) });
        tokenBudget = contextLength - overhead - DEFAULT_OUTPUT_RESERVE.focused;
        return tokenBudget;
      },
    });

    expect(prepared.coverage.files).toBe(2000);
    expect(prepared.coverage.lines).toBe(200_000);
    expect(prepared.coverage.reviewableFiles).toBeGreaterThan(1700);
    const covered = new Set(prepared.chunks.flatMap((chunk) => chunk.files));
    expect(covered.size).toBe(prepared.reviewable.length);
    for (const file of prepared.reviewable) expect(covered.has(file.path)).toBe(true);
    expectEveryLineOnce(prepared.reviewable, prepared.chunks);
    expect(prepared.chunks.reduce((sum, chunk) => sum + chunk.changedLines, 0)).toBe(prepared.coverage.reviewableLines);

    let renderedLines = 0;
    for (const chunk of prepared.chunks) {
      const built = buildReviewPrompt({
        mode: 'focused',
        chunk,
        chunkCount: prepared.chunks.length,
        skipped: prepared.skipped,
        reviewablePaths: prepared.reviewable.map((file) => file.path),
      });
      const diffTokens = countTokens(renderChunk(chunk));
      expect(diffTokens).toBe(chunk.tokens);
      expect(diffTokens).toBeLessThanOrEqual(tokenBudget);
      // The whole prompt plus the output reserve fits the model's context.
      expect(countTokens(built.system) + countTokens(built.prompt) + DEFAULT_OUTPUT_RESERVE.focused).toBeLessThanOrEqual(contextLength);
      renderedLines += renderedChangedLines(renderChunk(chunk));
    }
    expect(renderedLines).toBe(prepared.coverage.reviewableLines);
  });
});

describe('preparing in slices', () => {
  it('gives what preparing at once gives, and lets the event loop run in between', async () => {
    const diff = generateSyntheticDiff({ files: 60, changedLines: 3_000, seed: 5 });
    const options = { tokenBudget: 2_000 };
    let turns = 0;
    const ticker = setInterval(() => turns++, 0);
    try {
      // Slices of 0 ms: a pause at every file, so the timer runs however fast the machine is.
      const sliced = await prepareReviewInSlices(diff, options, 0);
      expect(turns).toBeGreaterThan(0);
      expect(sliced).toEqual(prepareReview(diff, options));
    } finally {
      clearInterval(ticker);
    }
  });

  it('rejects as preparing at once throws: a budget too small for the prompt', async () => {
    const diff = generateSyntheticDiff({ files: 4, changedLines: 40, seed: 5 });
    await expect(prepareReviewInSlices(diff, { tokenBudget: () => { throw new Error('context too small'); } })).rejects.toThrow('context too small');
    await expect(prepareReviewInSlices(diff, { tokenBudget: 10 })).rejects.toThrow(RangeError);
  });
});

