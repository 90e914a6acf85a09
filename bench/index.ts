import { authSessionBench } from './scenarios/auth-session.js';
import { bitbucketPublishingBench } from './scenarios/bitbucket-publishing.js';
import { chatBench } from './scenarios/chat.js';
import { codeContextBench } from './scenarios/code-context.js';
import { codeContextCoverageBench } from './scenarios/code-context-coverage.js';
import { codeSnapshotBench } from './scenarios/code-snapshot.js';
import { listsBench } from './scenarios/lists.js';
import { orgListsBench } from './scenarios/org-lists.js';
import { gitlabPublishingBench } from './scenarios/gitlab-publishing.js';
import { publishingBench } from './scenarios/publishing.js';
import { reviewPipelineBench } from './scenarios/review-pipeline.js';
import { reviewPrepareBench } from './scenarios/review-prepare.js';
import { reviewTokenizerBench } from './scenarios/review-tokenizer.js';
import { startupBench } from './scenarios/startup.js';
import { usageBench } from './scenarios/usage.js';
import { webhookBench } from './scenarios/webhook.js';
import { serversAvailable, type Backend } from './lib/service-process.js';

/**
 * `npm run bench [scenario...]`: every scenario (or the ones named) on the embedded backends and,
 * when PostgreSQL and Redis are reachable (BENCH_* or TEST_* URLs, else the loopback defaults), on
 * the servers. BENCH_DURATION sets the seconds of each load run (default 10).
 */
const duration = Number(process.env.BENCH_DURATION ?? 10);
const largeRounds = () => Math.max(1, Number(process.env.BENCH_LARGE_ROUNDS ?? 3) || 3);

/** A scenario that runs once per backend, one after the other. */
const perBackend = (run: (backend: Backend) => Promise<void>) => async (backends: Backend[]) => {
  for (const backend of backends) await run(backend);
};

const scenarios: Record<string, (backends: Backend[]) => Promise<void>> = {
  startup: startupBench,
  'auth-session': perBackend((backend) => authSessionBench(backend, duration)),
  chat: perBackend(chatBench),
  'review-prepare': reviewPrepareBench,
  'review-tokenizer': reviewTokenizerBench,
  'code-snapshot': codeSnapshotBench,
  'code-context': codeContextBench,
  'code-context-coverage': codeContextCoverageBench,
  'review-pipeline': perBackend((backend) => reviewPipelineBench(backend)),
  // The 2,000-file pull request alone, code context off and on in alternating rounds (BENCH_LARGE_ROUNDS, default 3).
  'large-pr': perBackend((backend) => reviewPipelineBench(backend, { ordinaryReviews: 0, burst: 0, largeRounds: largeRounds() })),
  webhook: perBackend((backend) => webhookBench(backend, duration)),
  lists: perBackend((backend) => listsBench(backend, duration)),
  'org-lists': perBackend((backend) => orgListsBench(backend, duration)),
  publishing: perBackend((backend) => publishingBench(backend)),
  'gitlab-publishing': perBackend((backend) => gitlabPublishingBench(backend)),
  'bitbucket-publishing': perBackend((backend) => bitbucketPublishingBench(backend)),
  usage: perBackend((backend) => usageBench(backend, duration)),
};

const selected = process.argv.slice(2);
const unknown = selected.filter((name) => !Object.hasOwn(scenarios, name));
if (unknown.length > 0) {
  console.error(`Unknown scenario${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}. Scenarios: ${Object.keys(scenarios).join(', ')}`);
  process.exit(2);
}
if (!Number.isFinite(duration) || duration <= 0) {
  console.error(`BENCH_DURATION must be a positive number of seconds, not "${process.env.BENCH_DURATION}"`);
  process.exit(2);
}

const backends: Backend[] = ['embedded', ...((await serversAvailable()) ? (['servers'] as const) : [])];
if (!backends.includes('servers')) console.log('PostgreSQL or Redis unreachable: embedded backends only');

for (const [name, run] of Object.entries(scenarios)) {
  if (selected.length === 0 || selected.includes(name)) await run(backends);
}
