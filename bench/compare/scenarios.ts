import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { FakeBitbucket } from '../../test/fakes/fake-bitbucket.js';
import { FakeOpenAIChat } from '../../test/fakes/fake-openai-chat.js';
import { githubUser, signInWithGitHubOverHttp } from '../../test/helpers/github-login.js';
import { reviewAnswer, SAMPLE_DIFF, SAMPLE_FINDINGS } from '../../test/helpers/review-fixtures.js';
import { examplePayload } from '../../test/helpers/webhooks.js';
import { fakeGitHub } from '../lib/accounts.js';
import { connectBitbucket } from '../lib/bitbucket-connection.js';
import { BitbucketDeliveryStream } from '../lib/bitbucket-delivery-stream.js';
import { withCleanup } from '../lib/cleanup.js';
import { DeliveryStream } from '../lib/delivery-stream.js';
import { load } from '../lib/http-load.js';
import { ORGANIZATION_USERS, ORGANIZATIONS, seedOrganizationLists } from '../lib/list-seed.js';
import { BENCH_WEBHOOK_SECRET, startService, type ServiceProcess } from '../lib/service-process.js';
import { chatFirstContent } from '../scenarios/chat.js';
import { gitlabPublishing } from '../scenarios/gitlab-publishing.js';

const run = promisify(execFile);
const PREPARE_CPU_MAIN = fileURLToPath(new URL('prepare-cpu-main.ts', import.meta.url));
const LOOP_DELAY_PRELOAD = fileURLToPath(new URL('../lib/loop-delay-preload.js', import.meta.url));

/** The figures of one run of a scenario on one side, by name. */
export type Figures = Record<string, number>;

export interface CompareContext {
  /** The source tree whose service runs (an older revision's, or this one). */
  root: string;
  /** Seconds of each load run (BENCH_DURATION). */
  duration: number;
}

const AUTHOR_ID = 4_204_242;
const EXAMPLE = examplePayload({ authorId: AUTHOR_ID });
const REPOSITORY = EXAMPLE.repository.full_name;
const PR_NUMBER = EXAMPLE.pull_request.number;
const INSTANT_MODEL = { PLATFORM_MODELS: JSON.stringify([{ id: 'instant', name: 'Instant', contextLength: 32_000, inputPrice: 0, outputPrice: 0 }]), FREE_ALLOWANCE_USD: '1000' };

/**
 * A service of the side's tree on PostgreSQL + Redis, with a fake GitHub (every pull request's diff
 * is SAMPLE_DIFF; no `.ai-review.yml`, so drafts are not reviewed) and an instant model, and the
 * author signed in. Only variables and routes both revisions know are used: the scenarios drive
 * the service over HTTP and read its database with plain SQL on tables both have.
 */
async function pipelineService(context: CompareContext, defer: (cleanup: () => Promise<unknown>) => void, env: Record<string, string> = {}, nodeArgs: string[] = []) {
  const { github, env: githubEnv } = await fakeGitHub();
  defer(() => github.stop());
  github.setDiff(REPOSITORY, PR_NUMBER, SAMPLE_DIFF);
  const model = await new FakeOpenAIChat().start();
  defer(() => model.stop());
  model.reply(() => ({ text: reviewAnswer(SAMPLE_FINDINGS) }));
  const service = await startService('servers', { ...githubEnv, PLATFORM_AI_BASE_URL: model.url, ...INSTANT_MODEL, ...env }, { root: context.root, nodeArgs });
  defer(() => service.cleanup());
  const { cookie } = await signInWithGitHubOverHttp(service.url, github, githubUser({ id: AUTHOR_ID, login: 'Codertocat' }));
  const database = new pg.Client({ connectionString: service.databaseUrl });
  await database.connect();
  defer(() => database.end());
  return { service, cookie, database };
}

/** Posts `count` deliveries of the stream, `concurrency` at a time; the time it took, in ms. */
async function post(service: ServiceProcess, stream: DeliveryStream, count: number, concurrency = 16): Promise<number> {
  const started = performance.now();
  let left = count;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (left-- > 0) {
        const { body, headers } = stream.next();
        const response = await fetch(`${service.url}/webhook`, { method: 'POST', body, headers });
        if (response.status !== 200) throw new Error(`delivery refused: ${response.status} ${await response.text()}`);
      }
    }),
  );
  return performance.now() - started;
}

/**
 * Waits until the reviews of these pull requests are all finished, polling the database, and
 * returns when the first and the last finished (ms since `since`, the epoch clock).
 */
async function drained(database: pg.Client, prIds: number[], since: number, timeoutMs = 900_000): Promise<{ firstMs: number; lastMs: number }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await database.query<{ done: string; first: number | null; last: number | null }>(
      `select count(*) filter (where status <> 'pending') as done, extract(epoch from min(completed_at)) * 1000 as first, extract(epoch from max(completed_at)) * 1000 as last
       from reviews where pr_id = any($1::bigint[])`,
      [prIds],
    );
    const row = rows[0]!;
    if (Number(row.done) >= prIds.length) return { firstMs: Number(row.first) - since, lastMs: Number(row.last) - since };
    if (Date.now() > deadline) throw new Error(`${row.done} of ${prIds.length} reviews finished in time`);
    await sleep(100);
  }
}

/** Transactions the database committed so far (statistics flushed about once a second). */
async function transactions(database: pg.Client): Promise<number> {
  await sleep(1_200);
  const { rows } = await database.query<{ xacts: string }>('select xact_commit + xact_rollback as xacts from pg_stat_database where datname = current_database()');
  return Number(rows[0]!.xacts);
}

const REVIEWS = 200;
const DRAFTS = 3_000;

/** 200 pull requests accepted at once (about a second), then their reviews drained. */
async function drain(context: CompareContext): Promise<Figures> {
  return withCleanup(async (defer) => {
    const { service, database } = await pipelineService(context, defer);
    const stream = new DeliveryStream(BENCH_WEBHOOK_SECRET, AUTHOR_ID);
    const xactsBefore = await transactions(database);
    const since = Date.now();
    const acceptMs = await post(service, stream, REVIEWS);
    const { firstMs, lastMs } = await drained(database, Array.from({ length: REVIEWS }, (_, n) => stream.prId(n)), since);
    return { 'accept s': acceptMs / 1000, 'first review s': firstMs / 1000, 'drain s': lastMs / 1000, 'transactions/review': ((await transactions(database)) - xactsBefore) / REVIEWS };
  });
}

/** 3,000 draft events (drafts not reviewed), then 200 real pull requests; their drain from their first delivery. */
async function drainAfterDrafts(context: CompareContext): Promise<Figures> {
  return withCleanup(async (defer) => {
    const { service, database } = await pipelineService(context, defer);
    const drafts = new DeliveryStream(BENCH_WEBHOOK_SECRET, AUTHOR_ID, { draft: true }, 810_000_000_000);
    const stream = new DeliveryStream(BENCH_WEBHOOK_SECRET, AUTHOR_ID);
    const xactsBefore = await transactions(database);
    const draftsMs = await post(service, drafts, DRAFTS, 32);
    const since = Date.now();
    const acceptMs = await post(service, stream, REVIEWS);
    const { firstMs, lastMs } = await drained(database, Array.from({ length: REVIEWS }, (_, n) => stream.prId(n)), since);
    return {
      'drafts accept s': draftsMs / 1000,
      'accept s': acceptMs / 1000,
      'first review s': firstMs / 1000,
      'drain s': lastMs / 1000,
      'transactions/review': ((await transactions(database)) - xactsBefore) / REVIEWS,
    };
  });
}

/** A webhook endpoint's maximum rate, 32 connections, each delivery the stream's next. */
async function maxRate(url: string, stream: { next(): { body: string; headers: Record<string, string> } }, duration: number): Promise<Figures> {
  const result = await load({ url, method: 'POST', connections: 32, duration, requests: [{ setupRequest: (request) => ({ ...request, ...stream.next() }) }] });
  return { 'deliveries/s': result.requestsPerSecond, 'p99 ms': result.p99Ms, non2xx: result.non2xx };
}

/** The webhook's maximum rate, API role alone, 32 connections: signed real deliveries, each a new pull request. */
async function webhookRate(context: CompareContext): Promise<Figures> {
  return withCleanup(async (defer) => {
    const { service } = await pipelineService(context, defer, { ROLE: 'api' });
    return maxRate(`${service.url}/webhook`, new DeliveryStream(BENCH_WEBHOOK_SECRET, AUTHOR_ID), context.duration);
  });
}

/**
 * `webhook-rate` on Bitbucket's endpoint (revisions with Bitbucket Cloud only): a repository
 * connected through the API, its signed `pullrequest:created` / `:updated` deliveries, each a new
 * pull request. Run beside `webhook-rate`, it puts Bitbucket's intake beside GitHub's.
 */
async function bitbucketWebhookRate(context: CompareContext): Promise<Figures> {
  return withCleanup(async (defer) => {
    const bitbucket = await new FakeBitbucket().start();
    defer(() => bitbucket.stop());
    const { service, cookie } = await pipelineService(context, defer, { ROLE: 'api', BITBUCKET_API_URL: bitbucket.apiUrl });
    const repository = await connectBitbucket(service.url, cookie, bitbucket, 'bench/webhook');
    const stream = new BitbucketDeliveryStream(repository.secret, { uuid: repository.repositoryUuid, fullName: repository.fullName }, repository.hookUuid);
    return maxRate(`${service.url}/webhook/bitbucket`, stream, context.duration);
  });
}

/**
 * Webhook latency at a paced 200 deliveries/s (2 connections) while 200 reviews drain: the paced
 * deliveries are `edited` events (stored, no review), so the drain stays the same 200.
 */
async function webhookPaced(context: CompareContext): Promise<Figures> {
  return withCleanup(async (defer) => {
    const delayFile = join(await mkdtemp(join(tmpdir(), 'bench-loop-')), 'delay.json');
    defer(() => rm(dirname(delayFile), { recursive: true, force: true }));
    const { service } = await pipelineService(context, defer, { BENCH_LOOP_DELAY_FILE: delayFile }, ['--import', LOOP_DELAY_PRELOAD]);
    const reviews = new DeliveryStream(BENCH_WEBHOOK_SECRET, AUTHOR_ID);
    const edits = new DeliveryStream(BENCH_WEBHOOK_SECRET, AUTHOR_ID, { action: 'edited' }, 820_000_000_000);
    await loopDelay(service.pid, delayFile);
    await post(service, reviews, REVIEWS);
    const result = await load({
      url: `${service.url}/webhook`,
      method: 'POST',
      connections: 2,
      overallRate: 200,
      duration: context.duration,
      requests: [{ setupRequest: (request) => ({ ...request, ...edits.next() }) }],
    });
    const delay = await loopDelay(service.pid, delayFile);
    return { 'p50 ms': result.p50Ms, 'p99 ms': result.p99Ms, non2xx: result.non2xx, 'loop delay p99 ms': delay.p99Ms, 'loop delay max ms': delay.maxMs };
  });
}

/**
 * The service's event-loop delay since the last call (see loop-delay-preload.js): a figure of the
 * service alone, which the load generator's own delays on a shared machine do not enter.
 */
async function loopDelay(pid: number, file: string): Promise<{ p99Ms: number; maxMs: number }> {
  await rm(file, { force: true });
  process.kill(pid, 'SIGUSR2');
  for (let waited = 0; waited < 10_000; waited += 50) {
    const text = await readFile(file, 'utf8').catch(() => undefined);
    if (text !== undefined && text.endsWith('}')) return JSON.parse(text) as { p99Ms: number; maxMs: number };
    await sleep(50);
  }
  throw new Error('the service did not report its event-loop delay');
}

const LIST_ROWS = 5_000;

/** `GET /pull-request/list`, 8 connections, the author holding 5,000 pull requests, while 200 reviews drain. */
async function lists(context: CompareContext): Promise<Figures> {
  return withCleanup(async (defer) => {
    const { service, cookie } = await pipelineService(context, defer);
    await post(service, new DeliveryStream(BENCH_WEBHOOK_SECRET, AUTHOR_ID, { action: 'edited' }, 830_000_000_000), LIST_ROWS, 32);
    await post(service, new DeliveryStream(BENCH_WEBHOOK_SECRET, AUTHOR_ID), REVIEWS);
    const result = await load({ url: `${service.url}/pull-request/list`, headers: { cookie }, connections: 8, duration: context.duration });
    return { 'req/s': result.requestsPerSecond, 'p50 ms': result.p50Ms, 'p99 ms': result.p99Ms, non2xx: result.non2xx };
  });
}

/** BENCH_COMPARE_ORG_ROWS: the pull requests of `org-lists` (default 100,000). */
function orgListRows(): number {
  const value = Number(process.env.BENCH_COMPARE_ORG_ROWS ?? 100_000);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`BENCH_COMPARE_ORG_ROWS must be a positive integer, not "${process.env.BENCH_COMPARE_ORG_ROWS}"`);
  return value;
}

/**
 * `GET /pull-request/list`, 8 connections, as the signed-in author, the same pull requests with
 * reviews (BENCH_COMPARE_ORG_ROWS) spread over 200 users on both sides: today three quarters belong
 * to 20 organizations, the author a member of two, and the list is everything visible; a revision
 * before organizations lists the author's own. Seeded by plain SQL through the bench's own seed, which
 * probes the schema for organizations rather than importing a side's modules.
 */
async function orgLists(context: CompareContext): Promise<Figures> {
  const rows = orgListRows();
  return withCleanup(async (defer) => {
    const { service, cookie, database } = await pipelineService(context, defer);
    const { rows: [author] } = await database.query<{ id: string }>('select id from users where codehost_user_id = $1', [AUTHOR_ID]);
    // No migration here (openDatabase would apply this tree's): the side's service made its own schema.
    const { organizations } = await seedOrganizationLists(drizzle(database), author!.id, rows);
    const url = `${service.url}/pull-request/list`;
    // One request first: the first of a process plans and caches what the rest reuse. An empty
    // page would measure nothing: refused.
    const first = await fetch(url, { headers: { cookie } });
    const page = first.status === 200 ? ((await first.json()) as unknown[]) : [];
    if (page.length === 0) throw new Error(`GET /pull-request/list answered ${first.status} with no pull requests`);
    console.log(`org-lists: ${rows} pull requests over ${ORGANIZATION_USERS} users, ${organizations ? `${ORGANIZATIONS} organizations` : 'no organizations (a revision before them)'}`);
    const result = await load({ url, headers: { cookie }, connections: 8, duration: context.duration });
    return { 'req/s': result.requestsPerSecond, 'p50 ms': result.p50Ms, 'p99 ms': result.p99Ms, non2xx: result.non2xx };
  });
}

/** The chat: what the service adds to the model's first token (the chat bench's measure, 20 chats at once). */
async function chat(context: CompareContext): Promise<Figures> {
  const result = await chatFirstContent('servers', { concurrency: 20, rounds: 5, warmUpRounds: 1, root: context.root });
  return { 'added ms p50': result.p50, 'added ms p99': result.p99 };
}

/** GitLab publishing of 25 findings, 10 at once (the gitlab-publishing bench's measure): the service's own time in the step. */
async function gitlabPublishingOwnTime(context: CompareContext): Promise<Figures> {
  const figures = await gitlabPublishing('servers', { root: context.root });
  return { 'own ms p50': figures.ownP50, 'own ms p99': figures.ownP99, 'step ms p50': figures.stepP50 };
}

/** Review preparation's CPU for a 40 KB diff in a warm process, in a process of the side's tree (no service). */
async function reviewPrepare(context: CompareContext): Promise<Figures> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', PREPARE_CPU_MAIN, '400'], { cwd: context.root });
  const { medianMs, p10Ms } = JSON.parse(stdout) as { medianMs: number; p10Ms: number };
  return { 'CPU ms median': medianMs, 'CPU ms p10': p10Ms };
}

export const COMPARE_SCENARIOS: Record<string, (context: CompareContext) => Promise<Figures>> = {
  drain,
  'drain-after-drafts': drainAfterDrafts,
  'webhook-rate': webhookRate,
  'bitbucket-webhook-rate': bitbucketWebhookRate,
  'webhook-paced': webhookPaced,
  lists,
  'org-lists': orgLists,
  chat,
  'review-prepare': reviewPrepare,
  'gitlab-publishing': gitlabPublishingOwnTime,
};
