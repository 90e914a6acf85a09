import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { generateSyntheticDiff } from '../../test/helpers/synthetic-diff.js';

/**
 * `node --import tsx prepare-cpu-main.ts [iterations]`, run in a side's root: the CPU of preparing one
 * review of a 40 KB diff in a warm process (parse, skip rules, sizing the prompt, chunking, building
 * each chunk's prompt), the median and the 10th percentile of `iterations`, as JSON. Imports that
 * side's modules, wherever its revision keeps them (src/review/ before the prepare/ and ask/ folders).
 */
const root = process.cwd();
const iterations = Number(process.argv[2] ?? 400);
const nested = existsSync(join(root, 'src/review/prepare/prepare-review.ts'));

interface Prepared {
  reviewable: Array<{ path: string }>;
  skipped: unknown[];
  chunks: unknown[];
}
/** What every revision since 1d6182f exports, typed here: this tree's types may not match an older one's. */
interface PrepareModule {
  prepareReview: (diff: string, options: { tokenBudget: (filtered: Prepared) => number }) => Prepared;
}
interface PromptsModule {
  promptOverheadTokens(input: object): number;
  buildReviewPrompt(input: object): unknown;
  DEFAULT_OUTPUT_RESERVE: { focused: number };
}

const load = <T>(path: string) => import(pathToFileURL(join(root, path)).href) as Promise<T>;
const { prepareReview } = await load<PrepareModule>(nested ? 'src/review/prepare/prepare-review.ts' : 'src/review/prepare-review.ts');
const prompts = await load<PromptsModule>(nested ? 'src/review/ask/prompts.ts' : 'src/review/prompts.ts');

const diff = generateSyntheticDiff({ files: 12, changedLines: 360, seed: 3 });
const prompt = {
  mode: 'focused',
  settings: null,
  pullRequest: { title: 'Add the billing export', body: 'Adds an export of invoices.', headBranch: 'feature', baseBranch: 'main' },
  instructions: [],
  learnings: [],
};

/** As the review step does: the chunk budget from the prompt's overhead, then every chunk's prompt. */
function prepareOnce(): void {
  const prepared = prepareReview(diff, {
    tokenBudget: ({ skipped, reviewable }) =>
      32_000 - prompts.promptOverheadTokens({ ...prompt, skipped, reviewablePaths: reviewable.map((file) => file.path), chunkCount: 2 }) - prompts.DEFAULT_OUTPUT_RESERVE.focused,
  });
  const reviewablePaths = prepared.reviewable.map((file) => file.path);
  for (const chunk of prepared.chunks) prompts.buildReviewPrompt({ ...prompt, chunk, chunkCount: prepared.chunks.length, skipped: prepared.skipped, reviewablePaths, fileContext: [] });
}

// Warm: the JIT, and the tokenizer's caches as a worker that has prepared reviews before has them.
for (let run = 0; run < 50; run++) prepareOnce();
const cpuMs: number[] = [];
for (let run = 0; run < iterations; run++) {
  const before = process.cpuUsage();
  prepareOnce();
  const used = process.cpuUsage(before);
  cpuMs.push((used.user + used.system) / 1000);
}
cpuMs.sort((a, b) => a - b);
console.log(JSON.stringify({ diffKB: diff.length / 1024, medianMs: cpuMs[cpuMs.length >> 1], p10Ms: cpuMs[Math.floor(cpuMs.length / 10)] }));
