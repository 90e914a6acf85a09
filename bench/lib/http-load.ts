import autocannon from 'autocannon';
import { percentile } from './stats.js';

export interface LoadResult {
  requestsPerSecond: number;
  /** Requests answered in the run. */
  requests: number;
  /** Percentiles of the 2xx responses' times, in ms to the microsecond. */
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
}

/**
 * An autocannon run (50 connections unless told) for `duration` seconds. Latency percentiles come
 * from each 2xx response's own time: autocannon's histogram keeps whole milliseconds, too coarse
 * where two revisions answer in 7 or 8 ms.
 */
export async function load(options: autocannon.Options & { duration: number }): Promise<LoadResult> {
  const times: number[] = [];
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const run = autocannon({ connections: 50, ...options }, (error: Error | null | undefined, result) => (error ? reject(error) : resolve(result)));
    run.on('response', (_client, statusCode, _bytes, responseTime) => {
      if (statusCode >= 200 && statusCode < 300) times.push(responseTime);
    });
  });
  const round = (ms: number) => Math.round(ms * 1000) / 1000;
  return {
    requestsPerSecond: result.requests.average,
    requests: result.requests.total,
    p50Ms: round(percentile(times, 50)),
    p99Ms: round(percentile(times, 99)),
    non2xx: result.non2xx,
    errors: result.errors,
  };
}
