import { writeFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import process from 'node:process';

/**
 * `node --import bench/lib/loop-delay-preload.js …`: the event loop's delay in a service process of
 * any revision (plain JavaScript, loaded before tsx). With BENCH_LOOP_DELAY_FILE set, each SIGUSR2
 * writes the delay since the last one (or the start) there as JSON, in ms, and starts over: a
 * scenario signals once before its measured part, to leave start-up out, and once after.
 */
const file = process.env.BENCH_LOOP_DELAY_FILE;
if (file) {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  process.on('SIGUSR2', () => {
    const ms = (ns) => ns / 1e6;
    writeFileSync(file, JSON.stringify({ p50Ms: ms(delay.percentile(50)), p99Ms: ms(delay.percentile(99)), maxMs: ms(delay.max), samples: delay.count }));
    delay.reset();
  });
}
