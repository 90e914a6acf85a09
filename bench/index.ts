import { authSessionBench } from './scenarios/auth-session.js';
import { chatBench } from './scenarios/chat.js';
import { reviewPipelineBench } from './scenarios/review-pipeline.js';
import { reviewPrepareBench } from './scenarios/review-prepare.js';
import { startupBench } from './scenarios/startup.js';
import { webhookBench } from './scenarios/webhook.js';
import { serversAvailable, type Backend } from './lib/service-process.js';

/**
 * `npm run bench [scenario...]`: every scenario on the embedded backends and, when PostgreSQL and
 * Redis are reachable (BENCH_* or TEST_* URLs, else the loopback defaults), on the servers.
 * BENCH_DURATION sets the seconds of each load run (default 10).
 */
const duration = Number(process.env.BENCH_DURATION ?? 10);
const backends: Backend[] = ['embedded', ...((await serversAvailable()) ? (['servers'] as const) : [])];
if (!backends.includes('servers')) console.log('PostgreSQL or Redis unreachable: embedded backends only');

const scenarios: Record<string, () => Promise<void>> = {
  startup: startupBench,
  'auth-session': async () => {
    for (const backend of backends) await authSessionBench(backend, duration);
  },
  chat: async () => {
    for (const backend of backends) await chatBench(backend);
  },
  'review-prepare': reviewPrepareBench,
  'review-pipeline': async () => {
    for (const backend of backends) await reviewPipelineBench(backend);
  },
  webhook: async () => {
    for (const backend of backends) await webhookBench(backend, duration);
  },
};

const selected = process.argv.slice(2);
for (const [name, run] of Object.entries(scenarios)) {
  if (selected.length === 0 || selected.includes(name)) await run();
}
