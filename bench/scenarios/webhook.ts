import type autocannon from 'autocannon';
import { inArray } from 'drizzle-orm';
import type { Database } from '../../src/db/database.js';
import { webhookDeliveries } from '../../src/db/schema/index.js';
import { FakeBitbucket } from '../../test/fakes/fake-bitbucket.js';
import { FakeGitLab } from '../../test/fakes/fake-gitlab.js';
import { githubUser, signInWithGitHubOverHttp } from '../../test/helpers/github-login.js';
import { fakeGitHub, signUp } from '../lib/accounts.js';
import { startBareJsonServer } from '../lib/bare-json-server.js';
import { connectBitbucket } from '../lib/bitbucket-connection.js';
import { BitbucketDeliveryStream } from '../lib/bitbucket-delivery-stream.js';
import { costPerDelivery } from '../lib/transactions.js';
import { withCleanup } from '../lib/cleanup.js';
import { DeliveryStream } from '../lib/delivery-stream.js';
import { connectGitLab } from '../lib/gitlab-connection.js';
import { GitLabDeliveryStream } from '../lib/gitlab-delivery-stream.js';
import { load, type LoadResult } from '../lib/http-load.js';
import { report } from '../lib/report.js';
import { BENCH_WEBHOOK_SECRET, startService, type Backend, type ServiceProcess } from '../lib/service-process.js';

const AUTHOR_ID = 21_031_067;

interface DeliveryContext {
  deliveryId?: string;
}

/**
 * The steady phase: 200 deliveries/s over 2 connections. autocannon paces many connections in
 * bursts that queue even on a server doing nothing (p99 near 20 ms on the bare server with 20
 * connections), so latency is read with few; the bare server's figure under the same load shows
 * what the load generator adds.
 */
const STEADY = { overallRate: 200, connections: 2 };

/** A supply of distinct signed deliveries. */
interface Deliveries {
  next(): { body: string; headers: Record<string, string> };
  readonly sent: number;
}

/**
 * Posts deliveries for `duration` seconds to `path` (the other options go to autocannon as they
 * are); `accepted` collects the `idHeader` of every delivery answered 200.
 */
function deliveries(
  stream: Deliveries,
  url: string,
  { accepted, path = '/webhook', idHeader = 'x-github-delivery', ...options }: Omit<autocannon.Options, 'url'> & { duration: number; accepted?: string[]; path?: string; idHeader?: string },
): Promise<LoadResult> {
  return load({
    ...options,
    url: `${url}${path}`,
    method: 'POST',
    requests: [
      {
        setupRequest: (request, context: DeliveryContext) => {
          const delivery = stream.next();
          context.deliveryId = delivery.headers[idHeader];
          return { ...request, ...delivery };
        },
        onResponse: (status, _body, context: DeliveryContext) => {
          if (status === 200 && context.deliveryId !== undefined) accepted?.push(context.deliveryId);
        },
      },
    ],
  });
}

/** How many of the accepted delivery ids have no stored row. */
async function countLost(db: Database, accepted: string[]): Promise<number> {
  let found = 0;
  for (let i = 0; i < accepted.length; i += 1000) {
    const chunk = accepted.slice(i, i + 1000);
    found += (await db.select({ id: webhookDeliveries.deliveryId }).from(webhookDeliveries).where(inArray(webhookDeliveries.deliveryId, chunk))).length;
  }
  return accepted.length - found;
}

/** The bare server's figures, per duration: the same in every backend's run, so measured once. */
const bareBaselines = new Map<number, Promise<{ max: LoadResult; steady: LoadResult }>>();

function bareBaseline(duration: number) {
  let baseline = bareBaselines.get(duration);
  if (baseline === undefined) {
    baseline = withCleanup(async (defer) => {
      const bare = await startBareJsonServer();
      defer(() => bare.stop());
      const stream = new DeliveryStream(BENCH_WEBHOOK_SECRET, AUTHOR_ID);
      return { max: await deliveries(stream, bare.url, { duration }), steady: await deliveries(stream, bare.url, { duration, ...STEADY }) };
    });
    // A failed measurement is not kept: the next run measures again.
    baseline.catch(() => bareBaselines.delete(duration));
    bareBaselines.set(duration, baseline);
  }
  return baseline;
}

/** One host's intake in a run: the rates, and the ids of the deliveries answered 200. */
interface Intake {
  max: LoadResult;
  steady: LoadResult;
  accepted: string[];
  /** Servers only: transactions and the API's CPU per delivery, sent one by one. */
  cost: Record<string, string | number>;
}

/**
 * A host's endpoint at its maximum rate, then at the steady 200/s, then (servers only, PGlite keeps
 * no statistics) what each delivery costs PostgreSQL when none shares a commit.
 */
async function intake(service: ServiceProcess, duration: number, stream: Deliveries, endpoint: { path: string; idHeader: string }): Promise<Intake> {
  const accepted: string[] = [];
  const max = await deliveries(stream, service.url, { duration, accepted, ...endpoint });
  const steady = await deliveries(stream, service.url, { duration, ...STEADY, accepted, ...endpoint });
  if (service.databaseUrl === undefined) return { max, steady, accepted, cost: { 'xacts/delivery 1-by-1': 'n/a' } };
  const cost = await costPerDelivery(stream, `${service.url}${endpoint.path}`, { databaseUrl: service.databaseUrl, pid: service.pid });
  return { max, steady, accepted, cost: { 'xacts/delivery 1-by-1': cost.transactions, 'API CPU ms/delivery 1-by-1': cost.cpuMs } };
}

/** A host's figures beside GitHub's (its rate as a ratio of GitHub's in the same run). */
function reportBeside(scenario: string, host: Intake, github: Intake, sent: number, lost: number) {
  report(scenario, {
    'service req/s': host.max.requestsPerSecond,
    'vs GitHub': host.max.requestsPerSecond / github.max.requestsPerSecond,
    'p99@max ms': host.max.p99Ms,
    'p99@200/s ms': host.steady.p99Ms,
    'p50@200/s ms': host.steady.p50Ms,
    ...host.cost,
    sent,
    accepted: host.accepted.length,
    lost,
    non2xx: host.max.non2xx + host.steady.non2xx,
    errors: host.max.errors + host.steady.errors,
  });
}

/**
 * Signed real `pull_request` payloads, each a new pull request and commit (so each one stores a
 * delivery, upserts a pull request and a repository link, starts a review and enqueues a job).
 * Max rate against the service and against a bare JSON server (measured once for all backends),
 * their ratio, p99 at a steady 200 deliveries/s, and every delivery answered 200 checked against
 * the rows stored. Then the same on `POST /webhook/gitlab` and `POST /webhook/bitbucket` in the same
 * run, with the same connections: a connected project's `Merge Request Hook` deliveries, and a
 * connected repository's signed `pullrequest:created` / `:updated` ones, each a new pull request.
 */
export async function webhookBench(backend: Backend, duration: number) {
  const bare = await bareBaseline(duration);
  await withCleanup(async (defer) => {
    const { github, env } = await fakeGitHub();
    defer(() => github.stop());
    // Bitbucket Cloud is configuration (`BITBUCKET_API_URL`): its fake starts before the service.
    const bitbucket = await new FakeBitbucket().start();
    defer(() => bitbucket.stop());
    // On the servers the API runs alone, as it would at scale; embedded, one process does everything.
    const service = await startService(backend, { ...env, BITBUCKET_API_URL: bitbucket.apiUrl, ...(backend === 'servers' ? { ROLE: 'api' } : {}) });
    defer(() => service.cleanup());

    await signInWithGitHubOverHttp(service.url, github, githubUser({ id: AUTHOR_ID, login: 'Codertocat' }));
    const stream = new DeliveryStream(BENCH_WEBHOOK_SECRET, AUTHOR_ID);
    const onGitHub = await intake(service, duration, stream, { path: '/webhook', idHeader: 'x-github-delivery' });

    // The other hosts' endpoints in the same run, with the same connections: a connected project's and repository's pull request events.
    const gitlab = await new FakeGitLab().start();
    defer(() => gitlab.stop());
    const cookie = await signUp(service.url, service.dataDir, 'webhook-bench@example.com');
    const project = await connectGitLab(service.url, cookie, gitlab, 'bench/webhook', { id: 90_101, username: 'bench-bot', name: 'Bench bot' });
    const gitlabStream = new GitLabDeliveryStream(project.secret, project.projectId);
    const onGitLab = await intake(service, duration, gitlabStream, { path: '/webhook/gitlab', idHeader: 'x-gitlab-event-uuid' });
    const repository = await connectBitbucket(service.url, cookie, bitbucket, 'bench/webhook');
    const bitbucketStream = new BitbucketDeliveryStream(repository.secret, { uuid: repository.repositoryUuid, fullName: repository.fullName }, repository.hookUuid);
    const onBitbucket = await intake(service, duration, bitbucketStream, { path: '/webhook/bitbucket', idHeader: 'x-request-uuid' });

    const [lost, gitlabLost, bitbucketLost] = await service.inspect((database) =>
      Promise.all([
        countLost(database.db, onGitHub.accepted),
        countLost(database.db, onGitLab.accepted.map((uuid) => GitLabDeliveryStream.deliveryId(project.id, uuid))),
        countLost(database.db, onBitbucket.accepted.map((uuid) => BitbucketDeliveryStream.deliveryId(repository.id, uuid))),
      ]),
    );
    const { max, steady } = onGitHub;
    report(`webhook [${backend}]`, {
      'service req/s': max.requestsPerSecond,
      'bare req/s': bare.max.requestsPerSecond,
      ratio: max.requestsPerSecond / bare.max.requestsPerSecond,
      'p99@max ms': max.p99Ms,
      'p99@200/s ms': steady.p99Ms,
      'p50@200/s ms': steady.p50Ms,
      'bare p99@200/s ms': bare.steady.p99Ms,
      ...onGitHub.cost,
      sent: stream.sent,
      accepted: onGitHub.accepted.length,
      lost,
      non2xx: max.non2xx + steady.non2xx,
      errors: max.errors + steady.errors,
    });
    reportBeside(`webhook/gitlab [${backend}]`, onGitLab, onGitHub, gitlabStream.sent, gitlabLost);
    reportBeside(`webhook/bitbucket [${backend}]`, onBitbucket, onGitHub, bitbucketStream.sent, bitbucketLost);
  });
}
