/** The nearest-rank p-th percentile (0-100) of `values`; 0 when there are none. */
export const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))] ?? 0;
