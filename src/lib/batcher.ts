export interface BatcherOptions<I> {
  maxBatchSize: number;
  /** Batches written at once; the rest wait and grow. */
  concurrency: number;
  /** Keys an item must not share with another item of its batch (it waits for a later batch). */
  keys?: (item: I) => string[];
}

interface Entry<I, O> {
  item: I;
  resolve: (value: O) => void;
  reject: (error: unknown) => void;
}

/**
 * Natural batching (group commit): an item submitted while no batch is in flight is written at
 * once; items submitted while the writers are busy are gathered into the next batch. No timers,
 * so a quiet service adds no latency and a busy one writes many items per round trip.
 *
 * If a batch of several fails, each item is retried alone so that one bad item fails only itself.
 */
export class Batcher<I, O> {
  private readonly waiting: Array<Entry<I, O>> = [];
  private active = 0;
  private idle: Array<() => void> = [];

  constructor(
    private readonly write: (items: I[]) => Promise<O[]>,
    private readonly options: BatcherOptions<I>,
  ) {}

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.drain();
    });
  }

  /** Resolves once everything submitted so far is written. */
  async drained(): Promise<void> {
    if (this.active === 0 && this.waiting.length === 0) return;
    await new Promise<void>((resolve) => this.idle.push(resolve));
  }

  private drain() {
    while (this.active < this.options.concurrency && this.waiting.length > 0) {
      const batch = this.takeBatch();
      this.active++;
      void this.run(batch).finally(() => {
        this.active--;
        this.drain();
        if (this.active === 0 && this.waiting.length === 0) for (const resolve of this.idle.splice(0)) resolve();
      });
    }
  }

  private takeBatch(): Array<Entry<I, O>> {
    const batch: Array<Entry<I, O>> = [];
    const taken = new Set<string>();
    const keys = this.options.keys;
    for (let index = 0; index < this.waiting.length && batch.length < this.options.maxBatchSize; ) {
      const entry = this.waiting[index]!;
      const itemKeys = keys?.(entry.item) ?? [];
      if (itemKeys.some((key) => taken.has(key))) {
        index++;
        continue;
      }
      for (const key of itemKeys) taken.add(key);
      batch.push(entry);
      this.waiting.splice(index, 1);
    }
    return batch;
  }

  private async run(batch: Array<Entry<I, O>>): Promise<void> {
    try {
      const results = await this.write(batch.map((entry) => entry.item));
      batch.forEach((entry, index) => entry.resolve(results[index]!));
    } catch (error) {
      if (batch.length === 1) {
        batch[0]!.reject(error);
        return;
      }
      for (const entry of batch) await this.run([entry]);
    }
  }
}
