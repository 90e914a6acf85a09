import { FakeOpenAIChat } from '../../test/fakes/fake-openai-chat.js';
import { reviewAnswer, SAMPLE_DIFF, SAMPLE_FINDINGS } from '../../test/helpers/review-fixtures.js';
import { generateSyntheticDiff } from '../../test/helpers/synthetic-diff.js';
import { examplePayload, newPrId, signedHeaders } from '../../test/helpers/webhooks.js';
import { githubUser, signInWithGitHubOverHttp } from '../../test/helpers/github-login.js';
import { fakeGitHub } from '../lib/accounts.js';
import { withCleanup } from '../lib/cleanup.js';
import { largePrRepository } from '../lib/large-pr-repository.js';
import { processCpuSeconds, processMemory, resetPeakRss } from '../lib/process-memory.js';
import { report } from '../lib/report.js';
import { BENCH_WEBHOOK_SECRET, startService, type Backend } from '../lib/service-process.js';
import { percentile } from '../lib/stats.js';

const AUTHOR_ID = 31_337;

/** The repository the large pull request's head is served from. */
const LARGE_PR_REPOSITORY = 'bench/large-pr';
const LARGE_PR_REPOSITORY_ID = 424_242;

interface ReviewState {
  reviewStatus: string;
  duration: number | null;
  context: { snapshot: string; scopes: number; definitions: number; tokens: number } | null;
  reviewRawJSON: { summary?: { overview?: string } } | null;
}

/**
 * The pipeline with an instant scripted model: each review's own time is its recorded duration
 * (webhook accepted to review stored) minus the time the model held its calls. Reviews one at a
 * time give the latency; a burst gives the throughput; the 2,000-file PR gives wall time and memory,
 * with its code context and without.
 */
export async function reviewPipelineBench(backend: Backend, { ordinaryReviews = 100, burst = 100, warmUp = 5, largeRounds = 1 } = {}) {
  await withCleanup(async (defer) => {
    const { github, env } = await fakeGitHub();
    defer(() => github.stop());
    const model = await new FakeOpenAIChat().start();
    defer(() => model.stop());
    model.reply(() => ({ text: reviewAnswer(SAMPLE_FINDINGS) }));
    const service = await startService(backend, {
      ...env,
      PLATFORM_AI_BASE_URL: model.url,
      PLATFORM_MODELS: JSON.stringify([{ id: 'instant', name: 'Instant', contextLength: 32_000, inputPrice: 0, outputPrice: 0 }]),
      FREE_ALLOWANCE_USD: '1000',
    });
    defer(() => service.cleanup());

    const { cookie } = await signInWithGitHubOverHttp(service.url, github, githubUser({ id: AUTHOR_ID, login: 'bench-author' }));

    const deliver = async (diff: string, code?: { repository: string; headSha: string; baseSha: string }) => {
      const payload = examplePayload({
        authorId: AUTHOR_ID,
        prId: newPrId(),
        number: Math.floor(Math.random() * 1e9),
        ...(code ? { headSha: code.headSha, baseSha: code.baseSha, repository: { id: LARGE_PR_REPOSITORY_ID, full_name: code.repository } } : {}),
      });
      github.setDiff(payload.repository.full_name, payload.pull_request.number, diff);
      const body = JSON.stringify(payload);
      const response = await fetch(`${service.url}/webhook`, { method: 'POST', body, headers: await signedHeaders(body, { secret: BENCH_WEBHOOK_SECRET }) });
      if (response.status !== 200) throw new Error(`delivery refused: ${response.status} ${await response.text()}`);
      return payload.pull_request.id;
    };
    const settled = async (prId: number, timeoutMs = 600_000): Promise<ReviewState> => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const [review] = (await (await fetch(`${service.url}/review/information/${prId}`, { headers: { cookie } })).json()) as ReviewState[];
        if (review && review.reviewStatus !== 'pending') return review;
        if (Date.now() > deadline) throw new Error('review did not finish');
        // Durations are stamped by the database: polling gently only spares the service.
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    };

    // Latency: one review at a time, its duration minus the model's share. The first few warm the
    // process up (JIT, connection pools, tokenizer tables) and are not counted.
    const own: number[] = [];
    for (let index = 0; index < warmUp; index++) await settled(await deliver(SAMPLE_DIFF));
    for (let index = 0; index < ordinaryReviews; index++) {
      const calls = model.completions().length;
      const review = await settled(await deliver(SAMPLE_DIFF));
      const modelMs = model.completions().slice(calls).reduce((total, call) => total + (call.durationMs ?? 0), 0);
      own.push((review.duration ?? 0) - modelMs);
    }

    // Throughput: a burst, delivered at once, until the last review is done.
    const started = performance.now();
    const prIds = await Promise.all(Array.from({ length: burst }, () => deliver(SAMPLE_DIFF)));
    for (const prId of prIds) await settled(prId);
    const perSecond = burst / ((performance.now() - started) / 1000);

    if (ordinaryReviews > 0 && burst > 0) {
      report(`review pipeline [${backend}]`, {
        'reviews/s': perSecond,
        'own ms p50': percentile(own, 50),
        'own ms p99': percentile(own, 99),
        reviews: warmUp + ordinaryReviews + burst,
      });
    }

    // The large pull request, through the whole pipeline, with the fake GitHub serving its head
    // commit: code context off (`reviews.context: none`, the pipeline as before code context) and
    // on (the default), alternating, each round on a head commit of its own (nothing cached). The
    // peak is reset before each review, so it is that review's (the kernel's high-water mark).
    const diff = generateSyntheticDiff({ files: 2_000, changedLines: 200_000 });
    const repository = largePrRepository(diff, largeRounds);
    defer(() => repository.remove());
    github.code.serveRepository(LARGE_PR_REPOSITORY, repository.dir);
    // GitHub serves an archive from its own machines; made during the round, the fake host's
    // `git archive` compressed 21 MB on one of the bench's two cores while the review ran.
    for (const head of repository.heads) github.code.prepareArchive(LARGE_PR_REPOSITORY, head);
    const rounds: Record<'off' | 'on', Array<{ wall: number; cpu: number; peak: number }>> = { off: [], on: [] };
    for (let round = 0; round < largeRounds; round++) {
      for (const variant of round % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const)) {
        const headSha = repository.heads[round * 2 + (variant === 'on' ? 1 : 0)]!;
        const baseSha = variant === 'on' ? repository.baseOn : repository.baseOff;
        resetPeakRss(service.pid);
        const memoryBefore = processMemory(service.pid);
        const cpuBefore = processCpuSeconds(service.pid);
        const callsBefore = model.completions().length;
        const largeStarted = performance.now();
        const large = await settled(await deliver(diff, { repository: LARGE_PR_REPOSITORY, headSha, baseSha }));
        const wallSeconds = (performance.now() - largeStarted) / 1000;
        const cpuSeconds = processCpuSeconds(service.pid) - cpuBefore;
        const peak = processMemory(service.pid).peakRssMiB;
        rounds[variant].push({ wall: wallSeconds, cpu: cpuSeconds, peak });
        const context = large.context;
        report(`review 2,000-file PR, context ${variant} [${backend}]`, {
          status: large.reviewStatus,
          'wall s': wallSeconds,
          'cpu s': cpuSeconds,
          'model calls': model.completions().length - callsBefore,
          'rss before MiB': memoryBefore.rssMiB,
          'peak rss MiB': peak,
          snapshot: context?.snapshot ?? 'none',
          'scopes/definitions/tokens': context ? `${context.scopes}/${context.definitions}/${context.tokens}` : '-',
        });
        // Context on without a snapshot measures nothing: say why (the overview's sentence).
        if (variant === 'on' && context?.snapshot === 'none') console.log(`  no snapshot: ${large.reviewRawJSON?.summary?.overview?.slice(-300) ?? '?'}`);
      }
    }
    const median = (values: number[]) => percentile(values, 50);
    const spread = (values: number[]) => `${Math.min(...values).toFixed(2)}-${Math.max(...values).toFixed(2)}`;
    report(`2,000-file PR, on / off [${backend}]`, {
      rounds: largeRounds,
      'wall s off': median(rounds.off.map((r) => r.wall)),
      'wall s on': median(rounds.on.map((r) => r.wall)),
      'wall ratio': median(rounds.on.map((r) => r.wall)) / median(rounds.off.map((r) => r.wall)),
      'wall ratio per round': rounds.on.map((r, at) => (r.wall / rounds.off[at]!.wall).toFixed(2)).join(','),
      'cpu ratio': median(rounds.on.map((r) => r.cpu)) / median(rounds.off.map((r) => r.cpu)),
      'peak MiB off': median(rounds.off.map((r) => r.peak)),
      'peak MiB on': median(rounds.on.map((r) => r.peak)),
      'wall on spread': spread(rounds.on.map((r) => r.wall)),
      'wall off spread': spread(rounds.off.map((r) => r.wall)),
    });
  });
}
