import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Long computations written as generators that `yield` (nothing) at points where they may pause
 * (after each file of a diff, say), run one of two ways: at once, or in slices that let the event
 * loop in between, so that a process serving HTTP and running workers answers requests while a
 * 2,000-file pull request is prepared (issue 18).
 */
export type Steps<T> = Generator<void, T, void>;

/** Runs the steps to their end without pausing. */
export function runToEnd<T>(steps: Steps<T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
  }
}

/**
 * Runs the steps, and at the first pause after `sliceMs` of work waits for the event loop's next
 * turn (I/O callbacks, timers, other jobs' continuations run then). A step longer than a slice is
 * not cut: slices are as fine as the pauses.
 */
export async function runInSlices<T>(steps: Steps<T>, sliceMs: number): Promise<T> {
  let sliceStart = performance.now();
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
    if (performance.now() - sliceStart >= sliceMs) {
      await nextTurn();
      sliceStart = performance.now();
    }
  }
}
