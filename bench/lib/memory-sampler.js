// Loaded into a service process by `startService({ sampleMemory: true })` (node --import): writes
// the process's memory (process.memoryUsage, in bytes) to BENCH_MEMORY_SAMPLES every 50 ms, one
// JSON line each, so a scenario can tell the V8 heap from buffers and from the rest of the RSS.
// Plain JavaScript: it is imported before tsx.
import { appendFileSync } from 'node:fs';
import process from 'node:process';
import { setInterval } from 'node:timers';

const file = process.env.BENCH_MEMORY_SAMPLES;
if (file) {
  setInterval(() => {
    const { rss, heapTotal, heapUsed, external, arrayBuffers } = process.memoryUsage();
    appendFileSync(file, `${JSON.stringify({ at: Date.now(), rss, heapTotal, heapUsed, external, arrayBuffers })}\n`);
  }, 50).unref();
}
