import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { prepareReview } from '../../src/review/prepare/prepare-review.js';
import { generateSyntheticDiff } from '../../test/helpers/synthetic-diff.js';
import { report } from '../lib/report.js';
import { bestPrepareTime, ordinaryDiff, pathologicalDiff, TOKEN_BUDGET, type PrepareTime } from '../lib/tokenizer-workloads.js';

const RUNS = 5;
const VARIED_DIFFS = 10_000;

const megabytes = (bytes: number) => bytes / 2 ** 20;

function garbageCollector(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

/**
 * The tokenizer in a worker that runs for weeks. First: an ordinary 5 MB pull request prepared
 * after a pathological one (hundreds of thousands of never-seen words) must cost what it costs in
 * a fresh process (best of five runs each, by CPU time, which the other processes of a shared
 * machine disturb less than the wall clock; the fresh process is a child started for it). Second:
 * 10,000 varied small pull requests prepared in one process, with the heap after a full collection
 * at the start, after the first thousand and at the end: bounded means it stops growing.
 */
export async function reviewTokenizerBench() {
  const fresh = JSON.parse(
    (await promisify(execFile)(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('../lib/prepare-fresh-main.ts', import.meta.url)), String(RUNS)])).stdout,
  ) as PrepareTime;

  const collectGarbage = garbageCollector();
  const ordinary = ordinaryDiff();
  let pathological: string | undefined = pathologicalDiff();
  const pathologicalMB = megabytes(pathological.length);
  const pathologicalStarted = performance.now();
  prepareReview(pathological, { tokenBudget: TOKEN_BUDGET });
  const pathologicalMs = performance.now() - pathologicalStarted;
  // As in a worker, the pathological review is over and its diff is garbage.
  pathological = undefined;
  collectGarbage();
  const after = bestPrepareTime(ordinary, RUNS);
  report('tokenizer after a pathological diff', {
    ordinaryMB: megabytes(ordinary.length),
    pathologicalMB,
    pathologicalMs,
    freshCpuMs: fresh.cpuMs,
    afterCpuMs: after.cpuMs,
    cpuRatio: after.cpuMs / fresh.cpuMs,
    freshWallMs: fresh.wallMs,
    afterWallMs: after.wallMs,
  });

  const heap = () => {
    collectGarbage();
    return megabytes(process.memoryUsage().heapUsed);
  };
  const startHeap = heap();
  const startRss = megabytes(process.memoryUsage().rss);
  let heapAfterThousand = 0;
  let bytes = 0;
  const started = performance.now();
  for (let index = 0; index < VARIED_DIFFS; index++) {
    // Each diff is its own: a different seed gives other identifiers, sizes and kinds of files.
    const diff = generateSyntheticDiff({ files: 1 + (index % 2), changedLines: 10 + (index % 3) * 10, seed: 1000 + index }) + pathologicalDiff(1, 5 + (index % 10), index + 1);
    bytes += diff.length;
    prepareReview(diff, { tokenBudget: TOKEN_BUDGET });
    if (index === 999) heapAfterThousand = heap();
  }
  const seconds = (performance.now() - started) / 1000;
  report(`tokenizer ${VARIED_DIFFS} varied diffs`, {
    seconds,
    totalMB: megabytes(bytes),
    heapStartMB: startHeap,
    heapAt1000MB: heapAfterThousand,
    heapEndMB: heap(),
    rssStartMB: startRss,
    rssEndMB: megabytes(process.memoryUsage().rss),
  });
}
