import type autocannon from 'autocannon';
import { inArray } from 'drizzle-orm';
import type { Database } from '../../src/db/database.js';
import { webhookDeliveries } from '../../src/db/schema/index.js';
import { githubUser, signInWithGitHubOverHttp } from '../../test/helpers/github-login.js';
import { ACCESS, FakeGitLab } from '../../test/fakes/fake-gitlab.js';
import { fakeGitHub, signUp } from '../lib/accounts.js';
import { startBareJsonServer } from '../lib/bare-json-server.js';
import { costPerDelivery } from '../lib/transactions.js';
import { withCleanup } from '../lib/cleanup.js';
import { DeliveryStream } from '../lib/delivery-stream.js';
import { GitLabDeliveryStream } from '../lib/gitlab-delivery-stream.js';
import { load, type LoadResult } from '../lib/http-load.js';
import { report } from '../lib/report.js';
import { BENCH_WEBHOOK_SECRET, startService, type Backend } from '../lib/service-process.js';

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

/**
 * Signed real `pull_request` payloads, each a new pull request and commit (so each one stores a
 * delivery, upserts a pull request and a repository link, starts a review and enqueues a job).
 * Max rate against the service and against a bare JSON server (measured once for all backends),
 * their ratio, p99 at a steady 200 deliveries/s, and every delivery answered 200 checked against
 * the rows stored. Then the same on `POST /webhook/gitlab` in the same run, with the same
 * connections: a connected project's `Merge Request Hook` deliveries, each a new merge request.
 */
export async function webhookBench(backend: Backend, duration: number) {
  const bare = await bareBaseline(duration);
  await withCleanup(async (defer) => {
    const { github, env } = await fakeGitHub();
    defer(() => github.stop());
    // On the servers the API runs alone, as it would at scale; embedded, one process does everything.
    const service = await startService(backend, { ...env, ...(backend === 'servers' ? { ROLE: 'api' } : {}) });
    defer(() => service.cleanup());

    await signInWithGitHubOverHttp(service.url, github, githubUser({ id: AUTHOR_ID, login: 'Codertocat' }));
    const stream = new DeliveryStream(BENCH_WEBHOOK_SECRET, AUTHOR_ID);
    const accepted: string[] = [];
    const max = await deliveries(stream, service.url, { duration, accepted });
    const steady = await deliveries(stream, service.url, { duration, ...STEADY, accepted });

    // GitLab's endpoint in the same run, with the same connections: a connected project's merge request events.
    const gitlab = await new FakeGitLab().start();
    defer(() => gitlab.stop());
    const cookie = await signUp(service.url, service.dataDir, 'webhook-bench@example.com');
    const project = gitlab.addProject('bench/webhook');
    const bot = { id: 90_101, username: 'bench-bot', name: 'Bench bot' };
    gitlab.addMember(project.id, bot, ACCESS.maintainer);
    const connected = await fetch(`${service.url}/gitlab/connections`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie },
      body: JSON.stringify({ baseUrl: gitlab.url, project: project.id, token: gitlab.issueToken(bot) }),
    });
    if (connected.status !== 201) throw new Error(`connection refused: ${connected.status} ${await connected.text()}`);
    const connection = (await connected.json()) as { id: string };
    const gitlabStream = new GitLabDeliveryStream(project.hooks[0]!.token!, project.id);
    const gitlabAccepted: string[] = [];
    const onGitLab = { path: '/webhook/gitlab', idHeader: 'x-gitlab-event-uuid', accepted: gitlabAccepted };
    const gitlabMax = await deliveries(gitlabStream, service.url, { duration, ...onGitLab });
    const gitlabSteady = await deliveries(gitlabStream, service.url, { duration, ...STEADY, ...onGitLab });
    // Servers only (PGlite keeps no statistics): what each delivery costs PostgreSQL when none shares a commit.
    const perDelivery = async (supply: Deliveries, path: string): Promise<Record<string, string | number>> => {
      if (service.databaseUrl === undefined) return { 'xacts/delivery 1-by-1': 'n/a' };
      const cost = await costPerDelivery(supply, `${service.url}${path}`, { databaseUrl: service.databaseUrl, pid: service.pid });
      return { 'xacts/delivery 1-by-1': cost.transactions, 'API CPU ms/delivery 1-by-1': cost.cpuMs };
    };
    const githubCost = await perDelivery(stream, '/webhook');
    const gitlabCost = await perDelivery(gitlabStream, '/webhook/gitlab');

    const lost = await service.inspect((database) => countLost(database.db, accepted));
    const gitlabLost = await service.inspect((database) => countLost(database.db, gitlabAccepted.map((uuid) => GitLabDeliveryStream.deliveryId(connection.id, uuid))));
    report(`webhook [${backend}]`, {
      'service req/s': max.requestsPerSecond,
      'bare req/s': bare.max.requestsPerSecond,
      ratio: max.requestsPerSecond / bare.max.requestsPerSecond,
      'p99@max ms': max.p99Ms,
      'p99@200/s ms': steady.p99Ms,
      'p50@200/s ms': steady.p50Ms,
      'bare p99@200/s ms': bare.steady.p99Ms,
      ...githubCost,
      sent: stream.sent,
      accepted: accepted.length,
      lost,
      non2xx: max.non2xx + steady.non2xx,
      errors: max.errors + steady.errors,
    });
    report(`webhook/gitlab [${backend}]`, {
      'service req/s': gitlabMax.requestsPerSecond,
      'vs GitHub': gitlabMax.requestsPerSecond / max.requestsPerSecond,
      'p99@max ms': gitlabMax.p99Ms,
      'p99@200/s ms': gitlabSteady.p99Ms,
      'p50@200/s ms': gitlabSteady.p50Ms,
      ...gitlabCost,
      sent: gitlabStream.sent,
      accepted: gitlabAccepted.length,
      lost: gitlabLost,
      non2xx: gitlabMax.non2xx + gitlabSteady.non2xx,
      errors: gitlabMax.errors + gitlabSteady.errors,
    });
  });
}
