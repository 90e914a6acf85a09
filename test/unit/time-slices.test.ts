import { describe, expect, it } from 'vitest';
import { runInSlices, runToEnd, type Steps } from '../../src/lib/time-slices.js';

function* counting(to: number, pauses: number[]): Steps<number> {
  let sum = 0;
  for (let n = 1; n <= to; n++) {
    sum += n;
    pauses.push(n);
    yield;
  }
  return sum;
}

describe('time slices', () => {
  it('runs the steps to their end at once, or with turns of the event loop between slices', async () => {
    expect(runToEnd(counting(4, []))).toBe(10);
    const seen: string[] = [];
    const pauses: number[] = [];
    const running = runInSlices(counting(3, pauses), 0);
    setImmediate(() => seen.push(`turn after ${pauses.length} steps`));
    expect(await running).toBe(6);
    // Not all three steps ran before the event loop had its turn.
    expect(seen).toHaveLength(1);
    expect(seen[0]).not.toBe('turn after 3 steps');
  });

  it('runs within one turn while the slice lasts', async () => {
    let turned = false;
    setImmediate(() => (turned = true));
    expect(await runInSlices(counting(100, []), 60_000)).toBe(5050);
    expect(turned).toBe(false);
  });
});
