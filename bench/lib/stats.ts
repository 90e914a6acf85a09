/** The nearest-rank p-th percentile (0-100) of `values`; 0 when there are none. */
export const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))] ?? 0;

/** The total length of the union of `[start, end]` intervals (time spent in at least one of them). */
export function unionLength(intervals: Array<[number, number]>): number {
  let total = 0;
  let [from, to] = [Number.NEGATIVE_INFINITY, Number.NEGATIVE_INFINITY];
  for (const [start, end] of [...intervals].sort((a, b) => a[0] - b[0])) {
    if (start > to) {
      if (to > from) total += to - from;
      [from, to] = [start, end];
    } else to = Math.max(to, end);
  }
  return to > from ? total + (to - from) : total;
}
