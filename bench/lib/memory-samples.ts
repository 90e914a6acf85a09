import { readFileSync } from 'node:fs';

/** One sample of bench/lib/memory-sampler.js, in bytes. */
export interface MemorySample {
  at: number;
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
}

const FIGURES = ['rss', 'heapTotal', 'heapUsed', 'external', 'arrayBuffers'] as const;
const MiB = 1024 * 1024;

/** The samples written between `from` and `to` (epoch ms). */
export function memorySamples(file: string, from: number, to: number): MemorySample[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as MemorySample)
    .filter((sample) => sample.at >= from && sample.at <= to);
}

/** Each figure's growth over the first sample, at its peak, in MiB (`rssGrowthMiB`, `heapUsedGrowthMiB`…). */
export function memoryGrowth(samples: MemorySample[]): Record<string, number> {
  const first = samples[0];
  if (first === undefined) return {};
  return Object.fromEntries(FIGURES.map((figure) => [`${figure}GrowthMiB`, (Math.max(...samples.map((sample) => sample[figure])) - first[figure]) / MiB]));
}
