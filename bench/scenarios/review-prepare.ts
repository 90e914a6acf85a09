import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { prepareReview, type FilteredDiff, type PreparedReview } from '../../src/review/prepare/prepare-review.js';
import { buildReviewPrompt, DEFAULT_OUTPUT_RESERVE, promptOverheadTokens } from '../../src/review/ask/prompts.js';
import { generateSyntheticDiff } from '../../test/helpers/synthetic-diff.js';
import { report } from '../lib/report.js';

const FILES = 2000;
const CHANGED_LINES = 200_000;
const CONTEXT_LENGTH = 32_000;
const RUNS = 3;

/** A full collection before each memory reading, without asking `npm run bench` for --expose-gc. */
function garbageCollector(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

const megabytes = (bytes: number) => bytes / 2 ** 20;

/**
 * Everything before the model calls, on a 2,000-file, 200,000-changed-line pull request at a 32k
 * context: parse + skip rules + sizing the prompt + chunking, wall time (the first run is cold: JIT,
 * tokenizer caches).
 * Memory: the process's peak RSS (getrusage; the tokenizer's tables and tsx are most of the RSS
 * before preparing), the heap in use right after preparing (garbage included, so close to the
 * peak) and the heap the prepared review retains after a full collection (the parsed diff; chunks
 * hold slices of it, not text).
 * Building every chunk's prompt (done by the pipeline as it sends them) is timed apart.
 */
export async function reviewPrepareBench() {
  const collectGarbage = garbageCollector();
  const diff = generateSyntheticDiff({ files: FILES, changedLines: CHANGED_LINES });
  collectGarbage();
  const baselineHeap = process.memoryUsage().heapUsed;
  const baselineRss = process.resourceUsage().maxRSS * 1024;

  // As the pipeline does: the chunk budget is what the prompt around a chunk (which lists the
  // skipped and the reviewable files) leaves of the context.
  let tokenBudget = 0;
  const budget = ({ skipped, reviewable }: FilteredDiff) => {
    const overhead = promptOverheadTokens({ mode: 'focused', chunkCount: 999, skipped, reviewablePaths: reviewable.map((file) => file.path) });
    tokenBudget = CONTEXT_LENGTH - overhead - DEFAULT_OUTPUT_RESERVE.focused;
    return tokenBudget;
  };

  const times: number[] = [];
  let heapAfter = 0;
  let prepared: PreparedReview | undefined;
  for (let run = 0; run < RUNS; run++) {
    prepared = undefined;
    collectGarbage();
    const started = performance.now();
    prepared = prepareReview(diff, { tokenBudget: budget });
    times.push(performance.now() - started);
    heapAfter = Math.max(heapAfter, process.memoryUsage().heapUsed);
    await new Promise((resolve) => setImmediate(resolve));
  }
  collectGarbage();
  const retained = process.memoryUsage().heapUsed - baselineHeap;
  const { coverage, chunks, skipped, reviewable } = prepared!;

  report('review prepare 2000 files/200k lines', {
    diffMB: megabytes(diff.length),
    coldMs: times[0]!,
    warmMs: Math.min(...times.slice(1)),
    chunks: chunks.length,
    tokenBudget,
    files: `${coverage.reviewableFiles}/${coverage.files}`,
    lines: `${coverage.reviewableLines}/${coverage.lines}`,
  });
  report('review prepare memory', {
    peakRssMB: megabytes(process.resourceUsage().maxRSS * 1024),
    rssBeforeMB: megabytes(baselineRss),
    heapAfterPrepareMB: megabytes(heapAfter),
    retainedHeapMB: megabytes(retained),
  });

  const started = performance.now();
  let promptChars = 0;
  const reviewablePaths = reviewable.map((file) => file.path);
  for (const chunk of chunks) {
    const built = buildReviewPrompt({ mode: 'focused', chunk, chunkCount: chunks.length, skipped, reviewablePaths });
    promptChars += built.system.length + built.prompt.length;
  }
  report('review prompts (all chunks)', { buildMs: performance.now() - started, promptMB: megabytes(promptChars) });
}
