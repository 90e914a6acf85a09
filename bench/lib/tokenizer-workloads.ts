import { prepareReview } from '../../src/review/prepare/prepare-review.js';
import { generateSyntheticDiff } from '../../test/helpers/synthetic-diff.js';

/** The chunk budget of a 32k-context model, as the review step works it out for an ordinary pull request. */
export const TOKEN_BUDGET = 18_000;

/** An ordinary pull request of about 5 MB: 400 files, 50,000 changed lines (deterministic). */
export const ordinaryDiff = () => generateSyntheticDiff({ files: 400, changedLines: 50_000, seed: 7 });

/**
 * What once left the tokenizer slow: a diff of words it has never seen (random letters, as in
 * minified identifiers, hashes and data), hundreds of thousands of them, in files under the size
 * limit so that every line is counted.
 */
export function pathologicalDiff(files = 8, linesPerFile = 5_000, seed = 12_345): string {
  let state = seed;
  const random = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const letters = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
  const word = (length: number) => Array.from({ length }, () => letters[Math.floor(random() * letters.length)]).join('');
  const parts: string[] = [];
  for (let file = 0; file < files; file++) {
    const path = `data/words-${file}.txt`;
    const lines = Array.from({ length: linesPerFile }, () => `+${word(24)} ${word(18)} ${word(12)}\n`).join('');
    parts.push(`diff --git a/${path} b/${path}\nnew file mode 100644\nindex 0000000..1111111\n--- /dev/null\n+++ b/${path}\n@@ -0,0 +1,${linesPerFile} @@\n${lines}`);
  }
  return parts.join('');
}

export interface PrepareTime {
  wallMs: number;
  /** CPU time of the process (user + system): on a shared machine, steadier than the wall clock. */
  cpuMs: number;
}

/** The fastest (by CPU time) of `runs` preparations of `diff`. */
export function bestPrepareTime(diff: string, runs: number): PrepareTime {
  let best: PrepareTime = { wallMs: Number.POSITIVE_INFINITY, cpuMs: Number.POSITIVE_INFINITY };
  for (let run = 0; run < runs; run++) {
    const cpu = process.cpuUsage();
    const started = performance.now();
    prepareReview(diff, { tokenBudget: TOKEN_BUDGET });
    const wallMs = performance.now() - started;
    const used = process.cpuUsage(cpu);
    const cpuMs = (used.user + used.system) / 1000;
    if (cpuMs < best.cpuMs) best = { wallMs, cpuMs };
  }
  return best;
}
