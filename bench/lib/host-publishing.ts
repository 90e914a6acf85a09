import { monitorEventLoopDelay } from 'node:perf_hooks';
import { FakeOpenAIChat } from '../../test/fakes/fake-openai-chat.js';
import { signUp } from './accounts.js';
import type { Defer } from './cleanup.js';
import { report } from './report.js';
import { startService, type Backend } from './service-process.js';
import { percentile, unionLength } from './stats.js';

/**
 * What the code-host publishing benches (`gitlab-publishing`, `bitbucket-publishing`) share: the
 * pull request (one new file of 30 lines), the model's review of it (25 findings, one on each of
 * the first 25 lines, the most a run posts), the service, and how a publication's step is timed.
 */
export const FINDINGS = 25;
export const FINDINGS_PATH = 'src/generated.ts';
/** The new file's only hunk, as both hosts' diffs carry it. */
export const NEW_FILE_HUNK = `@@ -0,0 +1,30 @@\n${Array.from({ length: 30 }, (_, n) => `+export const value${n + 1} = ${n + 1};`).join('\n')}\n`;

const ANSWER = JSON.stringify({
  summary: { overview: 'Adds constants.', intent: 'Bench.', risk: 'low', findingsCount: FINDINGS },
  comments: Array.from({ length: FINDINGS }, (_, n) => ({
    file: FINDINGS_PATH,
    line: n + 1,
    endLine: n + 1,
    severity: 'MAJOR',
    confidence: 90,
    title: `Finding number ${n + 1} about value${n + 1}`,
    comment: `value${n + 1} is exported but never read (${n + 1}).`,
    failureScenario: 'Dead code grows.',
    suggestedFix: 'Remove it.',
  })),
  confidence: { overall: 0.8, performance: 0.9, security: 0.9 },
  agenticFixPrompt: 'Remove the dead constants.',
});

/** The figures of one run: steps and the service's own time, over `rounds` rounds of `concurrency` publications. */
export interface PublishingFigures {
  publications: number;
  stepP50: number;
  stepP99: number;
  fakeP50: number;
  ownP50: number;
  ownP99: number;
  /** How late this process (the fake host's) ran a 1 ms timer over the counted rounds, mean and p99: a request waits that long before the fake stamps its arrival. */
  fakeLoopDelayMean: number;
  fakeLoopDelayP99: number;
}

/** One publication: its step on the fake host, and the fake's own time in it. */
export interface Publication {
  step: number;
  host: number;
}

/** A request as the fake hosts record it: its arrival and the end of its answer (NaN until then), on the epoch clock. */
export interface TimedRequest {
  at: number;
  endedAt: number;
}

/**
 * The service with an instant model answering the 25 findings, and an account signed up (its
 * cookie). `env` points the service at the fake host where that takes configuration.
 */
export async function publishingService(backend: Backend, defer: Defer, { root, email, env = {} }: { root?: string; email: string; env?: Record<string, string> }) {
  const model = await new FakeOpenAIChat().start();
  defer(() => model.stop());
  model.reply(() => ({ text: ANSWER }));
  const service = await startService(
    backend,
    {
      PLATFORM_AI_BASE_URL: model.url,
      PLATFORM_MODELS: JSON.stringify([{ id: 'instant', name: 'Instant', contextLength: 32_000, inputPrice: 0, outputPrice: 0 }]),
      FREE_ALLOWANCE_USD: '1000',
      ...env,
    },
    { root },
  );
  defer(() => service.cleanup());
  return { service, cookie: await signUp(service.url, service.dataDir, email) };
}

/**
 * A publication's step from its first call (`first`, the read of what it posted before) to the end
 * of the last of `calls` made since; the fake's own time is the union of those calls' intervals.
 */
export function publicationStep(calls: readonly TimedRequest[], first: TimedRequest): Publication {
  const inStep = calls.filter((request) => request.at >= first.at);
  const end = Math.max(...inStep.map((request) => request.endedAt));
  return { step: end - first.at, host: unionLength(inStep.map((request) => [request.at, request.endedAt])) };
}

/** Polls until `done` answers a publication (every 25 ms). */
export async function publicationDone(done: () => Publication | undefined): Promise<Publication> {
  for (;;) {
    const publication = done();
    if (publication !== undefined) return publication;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * One round of `concurrency` publications to warm up (JIT, pools), not counted, then `rounds`
 * counted ones, with this process's event-loop delay over them: the fake runs here, so a request
 * that arrives while it is busy is stamped late, and the wait counts as the service's.
 */
export async function measurePublications(publishOne: () => Promise<Publication>, { concurrency, rounds }: { concurrency: number; rounds: number }): Promise<PublishingFigures> {
  await Promise.all(Array.from({ length: concurrency }, publishOne));
  const steps: Publication[] = [];
  const loopDelay = monitorEventLoopDelay({ resolution: 1 });
  loopDelay.enable();
  for (let round = 0; round < rounds; round++) steps.push(...(await Promise.all(Array.from({ length: concurrency }, publishOne))));
  loopDelay.disable();
  // The histogram holds the whole interval between samples: the delay is what exceeds the 1 ms resolution.
  const lateness = (nanoseconds: number) => Math.max(0, nanoseconds / 1e6 - 1);
  const pick = (value: (step: Publication) => number) => steps.map(value);
  return {
    publications: steps.length,
    stepP50: percentile(pick((s) => s.step), 50),
    stepP99: percentile(pick((s) => s.step), 99),
    fakeP50: percentile(pick((s) => s.host), 50),
    ownP50: percentile(pick((s) => s.step - s.host), 50),
    ownP99: percentile(pick((s) => s.step - s.host), 99),
    fakeLoopDelayMean: lateness(loopDelay.mean),
    fakeLoopDelayP99: lateness(loopDelay.percentile(99)),
  };
}

/** One line of a publishing bench: `host` names the fake (`GitLab`, `Bitbucket`). */
export function reportPublishing(scenario: string, host: string, concurrency: number, figures: PublishingFigures) {
  report(scenario, {
    concurrent: concurrency,
    publications: figures.publications,
    'findings each': FINDINGS,
    'step ms p50': figures.stepP50,
    'step ms p99': figures.stepP99,
    [`fake ${host} ms p50`]: figures.fakeP50,
    'service own ms p50': figures.ownP50,
    'service own ms p99': figures.ownP99,
    'fake process loop delay ms mean': figures.fakeLoopDelayMean,
    'fake process loop delay ms p99': figures.fakeLoopDelayP99,
  });
}
