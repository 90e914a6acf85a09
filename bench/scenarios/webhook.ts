import { inArray } from 'drizzle-orm';
import type { Database } from '../../src/db/database.js';
import { webhookDeliveries } from '../../src/db/schema/index.js';
import { fakeGitHub, signInWithGitHub } from '../lib/accounts.js';
import { startBareJsonServer } from '../lib/bare-json-server.js';
import { DeliveryStream } from '../lib/delivery-stream.js';
import { load, type LoadResult } from '../lib/http-load.js';
import { report } from '../lib/report.js';
import { startService, type Backend } from '../lib/service-process.js';

const SECRET = 'bench-secret';
const AUTHOR_ID = 21_031_067;

interface DeliveryContext {
  deliveryId?: string;
}

/** Posts deliveries for a while; `accepted` collects the id of every delivery answered 200. */
function deliveries(
  stream: DeliveryStream,
  url: string,
  options: { durationSeconds: number; overallRate?: number; connections?: number; accepted?: string[] },
): Promise<LoadResult> {
  return load({
    url: `${url}/webhook`,
    method: 'POST',
    duration: options.durationSeconds,
    connections: options.connections ?? 50,
    overallRate: options.overallRate,
    requests: [
      {
        setupRequest: (request, context: DeliveryContext) => {
          const delivery = stream.next();
          context.deliveryId = delivery.headers['x-github-delivery'];
          return { ...request, ...delivery };
        },
        onResponse: (status, _body, context: DeliveryContext) => {
          if (status === 200 && context.deliveryId !== undefined) options.accepted?.push(context.deliveryId);
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

/**
 * Signed real `pull_request` payloads, each a new pull request and commit (so each one stores a
 * delivery, upserts a pull request and a repository link, starts a review and enqueues a job).
 * Max rate against the service and against a bare JSON server, their ratio, p99 at a steady
 * 200 deliveries/s, and every delivery answered 200 checked against the rows stored.
 */
/**
 * The steady phase: 200 deliveries/s over 2 connections. autocannon paces many connections in
 * bursts that queue even on a server doing nothing (p99 near 20 ms on the bare server with 20
 * connections), so latency is read with few; the bare server's figure under the same load shows
 * what the load generator adds.
 */
const STEADY = { overallRate: 200, connections: 2 };

export async function webhookBench(backend: Backend, durationSeconds: number) {
  const bare = await startBareJsonServer();
  const bareStream = new DeliveryStream(SECRET, AUTHOR_ID);
  const bareResult = await deliveries(bareStream, bare.url, { durationSeconds });
  const bareSteady = await deliveries(bareStream, bare.url, { durationSeconds, ...STEADY });
  bare.stop();

  const { github, env } = await fakeGitHub();
  // On the servers the API runs alone, as it would at scale; embedded, one process does everything.
  const service = await startService(backend, { ...env, ...(backend === 'servers' ? { ROLE: 'api' } : {}) });
  try {
    await signInWithGitHub(service.url, github, AUTHOR_ID, 'Codertocat');
    const stream = new DeliveryStream(SECRET, AUTHOR_ID);
    const accepted: string[] = [];
    const max = await deliveries(stream, service.url, { durationSeconds, accepted });
    const steady = await deliveries(stream, service.url, { durationSeconds, ...STEADY, accepted });
    const lost = await service.inspect((database) => countLost(database.db, accepted));
    report(`webhook [${backend}]`, {
      'service req/s': max.requestsPerSecond,
      'bare req/s': bareResult.requestsPerSecond,
      ratio: max.requestsPerSecond / bareResult.requestsPerSecond,
      'p99@max ms': max.p99Ms,
      'p99@200/s ms': steady.p99Ms,
      'p50@200/s ms': steady.p50Ms,
      'bare p99@200/s ms': bareSteady.p99Ms,
      sent: stream.sent,
      accepted: accepted.length,
      lost,
      non2xx: max.non2xx + steady.non2xx,
      errors: max.errors + steady.errors,
    });
  } finally {
    await service.cleanup();
    await github.stop();
  }
}
