import { monitorEventLoopDelay } from 'node:perf_hooks';
import { ACCESS, FakeGitLab, type FakeDiffEntry } from '../../test/fakes/fake-gitlab.js';
import { FakeOpenAIChat } from '../../test/fakes/fake-openai-chat.js';
import { signUp } from '../lib/accounts.js';
import { withCleanup } from '../lib/cleanup.js';
import { report } from '../lib/report.js';
import { startService, type Backend } from '../lib/service-process.js';
import { percentile, unionLength } from '../lib/stats.js';

const FINDINGS = 25;
const PATH = 'src/generated.ts';
/** A new file of 30 lines: each of the first 25 gets a finding, so every run posts the most a run may. */
const ENTRY: FakeDiffEntry = {
  old_path: PATH,
  new_path: PATH,
  a_mode: '0',
  b_mode: '100644',
  diff: `@@ -0,0 +1,30 @@\n${Array.from({ length: 30 }, (_, n) => `+export const value${n + 1} = ${n + 1};`).join('\n')}\n`,
  new_file: true,
  renamed_file: false,
  deleted_file: false,
};
const ANSWER = JSON.stringify({
  summary: { overview: 'Adds constants.', intent: 'Bench.', risk: 'low', findingsCount: FINDINGS },
  comments: Array.from({ length: FINDINGS }, (_, n) => ({
    file: PATH,
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
export interface GitLabPublishingFigures {
  publications: number;
  stepP50: number;
  stepP99: number;
  fakeP50: number;
  ownP50: number;
  ownP99: number;
  /** How late this process (the fake GitLab's) ran a 1 ms timer over the counted rounds, mean and p99: a request waits that long before the fake stamps its arrival. */
  fakeLoopDelayMean: number;
  fakeLoopDelayP99: number;
}

/**
 * Publishing a review of 25 findings on GitLab (decisions.md §12): merge requests arrive through
 * `POST /webhook/gitlab`, `concurrency` at a time. A publication's step is the interval on the
 * fake GitLab from its first read of the merge request's discussions to the end of its last call
 * (the summary note or the commit status, posted side by side): reading back, 25 discussions, the
 * summary note and the status. The fake
 * records each request's arrival and the end of its answer; the union of those intervals is the
 * fake host's time, and the step minus it is the service's own time (as the GitHub bench reports).
 * The fake runs in this process: a request that arrives while it is busy is stamped late, and the
 * wait counts as the service's. This process's event-loop delay is reported beside, to show how
 * much that can be (about one delay per round trip; four round trips per publication).
 */
export function gitlabPublishing(backend: Backend, { concurrency = 10, rounds = 3, root }: { concurrency?: number; rounds?: number; root?: string } = {}): Promise<GitLabPublishingFigures> {
  return withCleanup(async (defer) => {
    const gitlab = await new FakeGitLab().start();
    defer(() => gitlab.stop());
    const model = await new FakeOpenAIChat().start();
    defer(() => model.stop());
    model.reply(() => ({ text: ANSWER }));
    const service = await startService(
      backend,
      {
        PLATFORM_AI_BASE_URL: model.url,
        PLATFORM_MODELS: JSON.stringify([{ id: 'instant', name: 'Instant', contextLength: 32_000, inputPrice: 0, outputPrice: 0 }]),
        FREE_ALLOWANCE_USD: '1000',
      },
      { root },
    );
    defer(() => service.cleanup());

    const cookie = await signUp(service.url, service.dataDir, 'gitlab-bench@example.com');
    const bot = { id: 90_001, username: 'bench-bot', name: 'Bench bot' };
    const author = { id: 90_002, username: 'bench-dev', name: 'Dev' };
    const project = gitlab.addProject('bench/service');
    gitlab.addMember(project.id, bot, ACCESS.maintainer);
    const connected = await fetch(`${service.url}/gitlab/connections`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie },
      body: JSON.stringify({ baseUrl: gitlab.url, project: project.id, token: gitlab.issueToken(bot) }),
    });
    if (connected.status !== 201) throw new Error(`connection refused: ${connected.status} ${await connected.text()}`);
    const secret = project.hooks[0]!.token!;

    let iid = 1;
    const publishOne = async (): Promise<{ step: number; host: number }> => {
      const number = iid++;
      const head = number.toString(16).padStart(40, '0');
      gitlab.openMergeRequest(project.id, number, { author, diffRefs: { base_sha: 'b'.repeat(40), start_sha: 'b'.repeat(40), head_sha: head }, diffs: [ENTRY] });
      const hook = {
        object_kind: 'merge_request',
        user: { id: author.id, username: author.username },
        project: { id: project.id, path_with_namespace: project.path, web_url: `${gitlab.url}/${project.path}` },
        object_attributes: { id: 500_000 + number, iid: number, title: `Bench ${number}`, state: 'opened', action: 'open', source_branch: `b${number}`, target_branch: 'main', author_id: author.id, url: `${gitlab.url}/${project.path}/-/merge_requests/${number}`, last_commit: { id: head } },
      };
      const response = await fetch(`${service.url}/webhook/gitlab`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-gitlab-event': 'Merge Request Hook', 'x-gitlab-token': secret }, body: JSON.stringify(hook) });
      if (response.status !== 200) throw new Error(`delivery refused: ${response.status} ${await response.text()}`);
      const discussions = `/api/v4/projects/${project.id}/merge_requests/${number}/discussions`;
      for (;;) {
        const done = gitlab.project(project.id).statuses.find((status) => status.sha === head && status.status !== 'running');
        if (done !== undefined) {
          const calls = gitlab.requests.filter((request) => request.path.startsWith(`/api/v4/projects/${project.id}/`) && (request.path.includes(`/merge_requests/${number}/`) || request.path.endsWith(`/statuses/${head}`)));
          // The summary note may be posted beside the status: the step ends when both are answered.
          if (!calls.some((request) => request.method === 'POST' && request.path.endsWith(`/merge_requests/${number}/notes`)) || calls.some((request) => Number.isNaN(request.endedAt))) {
            await new Promise((resolve) => setTimeout(resolve, 25));
            continue;
          }
          const first = calls.find((request) => request.method === 'GET' && request.path === discussions)!;
          const posted = calls.filter((request) => request.method === 'POST' && request.path === discussions).length;
          if (posted !== FINDINGS) throw new Error(`!${number}: ${posted} discussions posted, not ${FINDINGS}`);
          const inStep = calls.filter((request) => request.at >= first.at);
          const end = Math.max(...inStep.map((request) => request.endedAt));
          return { step: end - first.at, host: unionLength(inStep.map((request) => [request.at, request.endedAt])) };
        }
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    };

    // One round to warm up (JIT, pools), not counted.
    await Promise.all(Array.from({ length: concurrency }, publishOne));
    const steps: Array<{ step: number; host: number }> = [];
    const loopDelay = monitorEventLoopDelay({ resolution: 1 });
    loopDelay.enable();
    for (let round = 0; round < rounds; round++) steps.push(...(await Promise.all(Array.from({ length: concurrency }, publishOne))));
    loopDelay.disable();
    // The histogram holds the whole interval between samples: the delay is what exceeds the 1 ms resolution.
    const lateness = (nanoseconds: number) => Math.max(0, nanoseconds / 1e6 - 1);
    const pick = (value: (step: { step: number; host: number }) => number) => steps.map(value);
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
  });
}

export async function gitlabPublishingBench(backend: Backend, concurrency = 10, rounds = 3) {
  const figures = await gitlabPublishing(backend, { concurrency, rounds });
  report(`gitlab-publishing [${backend}]`, {
    concurrent: concurrency,
    publications: figures.publications,
    'findings each': FINDINGS,
    'step ms p50': figures.stepP50,
    'step ms p99': figures.stepP99,
    'fake GitLab ms p50': figures.fakeP50,
    'service own ms p50': figures.ownP50,
    'service own ms p99': figures.ownP99,
    'fake process loop delay ms mean': figures.fakeLoopDelayMean,
    'fake process loop delay ms p99': figures.fakeLoopDelayP99,
  });
}
