import { FakeGitHubApp } from '../../test/fakes/fake-github-app.js';
import { FakeOpenAIChat } from '../../test/fakes/fake-openai-chat.js';
import { githubEnv, githubUser, signInWithGitHubOverHttp } from '../../test/helpers/github-login.js';
import { reviewAnswer, SAMPLE_DIFF, SAMPLE_FINDINGS } from '../../test/helpers/review-fixtures.js';
import { examplePayload, newPrId, signedHeaders } from '../../test/helpers/webhooks.js';
import { withCleanup } from '../lib/cleanup.js';
import { report } from '../lib/report.js';
import { BENCH_WEBHOOK_SECRET, startService, type Backend } from '../lib/service-process.js';
import { percentile } from '../lib/stats.js';

const INSTALLATION_ID = 77_001;
const REPO = { id: 55_001, full_name: 'bench-org/service' };

interface Information {
  reviewStatus: string;
  reviewCompletedAt: string | null;
  publication: { state: string };
}

/**
 * Publishing through the GitHub App: pull requests arrive through an installation, `concurrency` at
 * a time, and each publication's latency is the time from its review's completion (stamped by the
 * database) to its review with inline comments submitted on the fake GitHub, which answers at once.
 * That interval is the service's own time: the queue hand-off, reading back what it posted, the
 * installation token (cached after the first), and the posting itself.
 */
export async function publishingBench(backend: Backend, concurrency = 20, rounds = 5) {
  await withCleanup(async (defer) => {
    const github = await new FakeGitHubApp().start();
    defer(() => github.stop());
    github.install(INSTALLATION_ID, [REPO.full_name]);
    const model = await new FakeOpenAIChat().start();
    defer(() => model.stop());
    model.reply(() => ({ text: reviewAnswer(SAMPLE_FINDINGS) }));
    const service = await startService(backend, {
      ...githubEnv(github),
      ...github.env(),
      PLATFORM_AI_BASE_URL: model.url,
      PLATFORM_MODELS: JSON.stringify([{ id: 'instant', name: 'Instant', contextLength: 32_000, inputPrice: 0, outputPrice: 0 }]),
      FREE_ALLOWANCE_USD: '1000',
    });
    defer(() => service.cleanup());

    const installer = githubUser({ login: 'bench-installer' });
    const { cookie } = await signInWithGitHubOverHttp(service.url, github, installer);
    const send = async (event: string, payload: unknown) => {
      const body = JSON.stringify(payload);
      const response = await fetch(`${service.url}/webhook`, { method: 'POST', body, headers: await signedHeaders(body, { secret: BENCH_WEBHOOK_SECRET, event }) });
      if (response.status !== 200) throw new Error(`${event} refused: ${response.status} ${await response.text()}`);
    };
    await send('installation', {
      action: 'created',
      installation: { id: INSTALLATION_ID, account: { id: 1, login: 'bench-org', type: 'Organization' }, repository_selection: 'selected' },
      repositories: [REPO],
      sender: { id: installer.id, login: installer.login },
    });

    let number = 1;
    /** From the publication's first read of the pull request's comments to its review submitted: the step's own time. */
    const ownTime = (prNumber: number, submittedAt: number) => {
      const started = github.requests.find((request) => request.method === 'GET' && request.path === `/repos/${REPO.full_name}/pulls/${prNumber}/comments`);
      return started === undefined ? Number.NaN : submittedAt - started.at;
    };
    const publishOne = async (): Promise<[number, number]> => {
      const prNumber = number++;
      // Each its own head commit: check runs belong to commits, and pull requests sharing one would share it.
      const headSha = prNumber.toString(16).padStart(40, '0');
      const payload = { ...examplePayload({ authorId: githubUser().id, prId: newPrId(), number: prNumber, repository: REPO, headSha }), installation: { id: INSTALLATION_ID } };
      github.openPull(REPO.full_name, prNumber, payload.pull_request.head.sha, SAMPLE_DIFF);
      await send('pull_request', payload);
      for (;;) {
        const [info] = (await (await fetch(`${service.url}/review/information/${payload.pull_request.id}`, { headers: { cookie } })).json()) as Information[];
        const review = github.submittedReviews(REPO.full_name, prNumber)[0];
        if (info?.reviewCompletedAt && review !== undefined) return [review.submittedAtMs - Date.parse(info.reviewCompletedAt), ownTime(prNumber, review.submittedAtMs)];
        if (info?.reviewStatus === 'failed' || info?.publication.state === 'failed') throw new Error(`publication of #${prNumber} failed`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    };

    // One round to warm up (JIT, pools, the installation token), not counted.
    await Promise.all(Array.from({ length: concurrency }, publishOne));
    const latencies: number[] = [];
    const own: number[] = [];
    for (let round = 0; round < rounds; round++) {
      for (const [latency, step] of await Promise.all(Array.from({ length: concurrency }, publishOne))) {
        latencies.push(latency);
        own.push(step);
      }
    }
    report(`publishing [${backend}]`, {
      concurrent: concurrency,
      publications: latencies.length,
      'completed→inline ms p50': percentile(latencies, 50),
      'completed→inline ms p99': percentile(latencies, 99),
      'step own ms p50': percentile(own, 50),
      'step own ms p99': percentile(own, 99),
    });
  });
}
