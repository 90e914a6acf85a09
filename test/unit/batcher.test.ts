import { describe, expect, it } from 'vitest';
import { Batcher } from '../../src/lib/batcher.js';

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('Batcher (natural batching)', () => {
  it('writes a lone item at once, and gathers items that arrive while a write is in flight', async () => {
    const batches: number[][] = [];
    const batcher = new Batcher<number, number>(
      async (items) => {
        batches.push(items);
        await tick();
        return items.map((item) => item * 10);
      },
      { maxBatchSize: 100, concurrency: 1 },
    );
    const first = batcher.submit(1);
    const rest = [2, 3, 4].map((item) => batcher.submit(item));
    expect(await Promise.all([first, ...rest])).toEqual([10, 20, 30, 40]);
    expect(batches).toEqual([[1], [2, 3, 4]]);
  });

  it('respects the batch size and the number of concurrent writes', async () => {
    let running = 0;
    let peak = 0;
    const sizes: number[] = [];
    const batcher = new Batcher<number, number>(
      async (items) => {
        running++;
        peak = Math.max(peak, running);
        sizes.push(items.length);
        await tick();
        running--;
        return items;
      },
      { maxBatchSize: 3, concurrency: 2 },
    );
    await Promise.all(Array.from({ length: 20 }, (_, i) => batcher.submit(i)));
    expect(peak).toBe(2);
    expect(Math.max(...sizes)).toBe(3);
    expect(sizes.reduce((a, b) => a + b)).toBe(20);
  });

  it('never puts two items with a shared key in one batch', async () => {
    const batches: string[][] = [];
    const batcher = new Batcher<string, string>(
      async (items) => {
        batches.push(items);
        await tick();
        return items;
      },
      { maxBatchSize: 10, concurrency: 1, keys: (item) => [item.split('#')[0]!] },
    );
    await Promise.all(['a#1', 'a#2', 'b#1', 'a#3', 'c#1'].map((item) => batcher.submit(item)));
    for (const batch of batches) expect(new Set(batch.map((item) => item.split('#')[0])).size).toBe(batch.length);
    // Items of one key keep their order.
    expect(batches.flat().filter((item) => item.startsWith('a'))).toEqual(['a#1', 'a#2', 'a#3']);
  });

  it('isolates a failing item: the others of its batch still succeed', async () => {
    const batcher = new Batcher<number, number>(
      async (items) => {
        await tick();
        if (items.includes(13)) throw new Error('unlucky');
        return items;
      },
      { maxBatchSize: 10, concurrency: 1 },
    );
    const results = await Promise.allSettled([1, 13, 2, 3].map((item) => batcher.submit(item)));
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
  });

  it('drained() waits for everything submitted', async () => {
    const written: number[] = [];
    const batcher = new Batcher<number, void>(
      async (items) => {
        await tick();
        written.push(...items);
        return items.map(() => undefined);
      },
      { maxBatchSize: 2, concurrency: 1 },
    );
    for (let i = 0; i < 5; i++) void batcher.submit(i);
    await batcher.drained();
    expect(written).toEqual([0, 1, 2, 3, 4]);
    await batcher.drained();
  });
});
