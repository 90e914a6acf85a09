import { timingSafeEqual } from 'node:crypto';
import { AggregatorRegistry, collectDefaultMetrics, Counter, Gauge, Histogram, Registry, type MetricObjectWithValues, type MetricValue } from 'prom-client';
import { DEFAULT_RETRY_POLICIES, type JobQueue, type QueueCounts, type QueueName } from '../queue/job-queue.js';

/** Every queue the service declares (each has a retry policy), so a new queue is counted without code here. */
const QUEUE_NAMES = Object.keys(DEFAULT_RETRY_POLICIES) as QueueName[];
const QUEUE_STATES: Array<keyof QueueCounts> = ['waiting', 'active', 'failed'];

/** Events counted by name; any other is `other`, so a sender cannot grow the label set. */
const COUNTED_WEBHOOK_EVENTS = new Set(['pull_request', 'ping', 'installation', 'installation_repositories', 'issue_comment', 'check_run', 'pull_request_review_comment']);

/** A request that matched no route: its URL is not a label (anyone can send any URL). */
const UNMATCHED_ROUTE = 'unmatched';

/** Families as prom-client's JSON, as another thread of the process hands them over. */
export type MetricFamilies = Array<MetricObjectWithValues<MetricValue<string>>>;

/**
 * prom-client's process metrics (CPU, memory, event-loop lag, GC), once per process: they describe
 * the process, and each collection keeps observers alive for the process's lifetime.
 */
let processRegistry: Registry | undefined;
const processMetrics = () => {
  if (processRegistry === undefined) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
};

type HttpChild = ReturnType<Histogram<'method' | 'route' | 'status'>['labels']>;

/**
 * The service's Prometheus metrics, in a registry of its own (not prom-client's global one, so
 * several apps in one process, as in tests, keep theirs apart). Counting is a few map lookups and
 * an addition; the queue depths are read only when scraped.
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  /** Other threads of this process that count into families of their own (a `ROLE=all` process's worker thread). */
  private readonly peers: Array<() => Promise<MetricFamilies>> = [];

  private readonly httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP requests by method, route pattern and status, with their durations',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  /** method → route → status → child: no label object is built per request. */
  private readonly httpChildren = new Map<string, Map<string, Map<number, HttpChild>>>();

  readonly jobDuration = new Histogram({
    name: 'queue_job_duration_seconds',
    help: 'Job attempts by queue and outcome (completed, failed), with their durations',
    labelNames: ['queue', 'outcome'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers: [this.registry],
  });

  readonly jobsFailed = new Counter({
    name: 'queue_jobs_failed_total',
    help: 'Jobs failed for good (retries spent or unrecoverable), by queue',
    labelNames: ['queue'] as const,
    registers: [this.registry],
  });

  readonly reviews = new Counter({
    name: 'reviews_finished_total',
    help: 'Review runs finished, by outcome (completed, failed) and mode',
    labelNames: ['outcome', 'mode'] as const,
    registers: [this.registry],
  });

  readonly modelTokens = new Counter({
    name: 'model_tokens_total',
    help: 'Model tokens by provider, model and kind (input, cached_input, output, reasoning)',
    labelNames: ['provider', 'model', 'kind'] as const,
    registers: [this.registry],
  });

  readonly platformCost = new Counter({
    name: 'platform_cost_usd_total',
    help: 'Spend on the platform models in USD, by provider and model',
    labelNames: ['provider', 'model'] as const,
    registers: [this.registry],
  });

  private readonly webhookDeliveries = new Counter({
    name: 'webhook_deliveries_total',
    help: 'Webhook deliveries by event and outcome (stored, review-started, duplicate, ping, or the error code)',
    labelNames: ['event', 'outcome'] as const,
    registers: [this.registry],
  });

  /** For the GitHub App's publishing: `metrics.publications.inc({ outcome })`. */
  readonly publications = new Counter({
    name: 'publications_total',
    help: 'Reviews published to GitHub, by outcome',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  constructor(queue: JobQueue) {
    new Gauge({
      name: 'queue_jobs',
      help: 'Jobs in each queue by state, read when scraped',
      labelNames: ['queue', 'state'] as const,
      registers: [this.registry],
      async collect() {
        this.reset();
        await Promise.all(
          QUEUE_NAMES.map(async (name) => {
            // A queue that cannot answer (Redis down) is left out of this scrape rather than failing it.
            const counts = await queue.counts(name).catch(() => undefined);
            if (counts !== undefined) for (const state of QUEUE_STATES) this.labels(name, state).set(counts[state]);
          }),
        );
      },
    });
  }

  /** One HTTP request; `route` is the matched pattern (undefined when none matched). */
  observeRequest(method: string, route: string | undefined, status: number, elapsedMs: number): void {
    const pattern = route ?? UNMATCHED_ROUTE;
    let byRoute = this.httpChildren.get(method);
    if (byRoute === undefined) this.httpChildren.set(method, (byRoute = new Map<string, Map<number, HttpChild>>()));
    let byStatus = byRoute.get(pattern);
    if (byStatus === undefined) byRoute.set(pattern, (byStatus = new Map<number, HttpChild>()));
    let child = byStatus.get(status);
    if (child === undefined) byStatus.set(status, (child = this.httpDuration.labels(method, pattern, String(status))));
    child.observe(elapsedMs / 1000);
  }

  webhookDelivery(event: string | undefined, outcome: string): void {
    this.webhookDeliveries.labels(event !== undefined && COUNTED_WEBHOOK_EVENTS.has(event) ? event : 'other', outcome).inc();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The service's families and the process's, as one exposition, with what the peers counted added in. */
  async scrape(): Promise<string> {
    const own = Registry.merge([this.registry, processMetrics()]);
    if (this.peers.length === 0) return own.metrics();
    const peers = await Promise.all(this.peers.map((families) => families()));
    return AggregatorRegistry.aggregate([await own.getMetricsAsJSON(), ...peers]).metrics();
  }

  /** Counts of another thread, summed into each scrape. */
  addPeer(families: () => Promise<MetricFamilies>): void {
    this.peers.push(families);
  }

  /** This registry's families for a peer's scrape; the queue depths are read by the scraping side. */
  async familiesForPeer(): Promise<MetricFamilies> {
    return (await this.registry.getMetricsAsJSON()).filter((family) => family.name !== 'queue_jobs');
  }
}

/** Whether an `Authorization` header carries the scraper's bearer token (compared in constant time). */
export function bearerMatches(header: string | undefined, token: string): boolean {
  if (header === undefined) return false;
  const sent = Buffer.from(header);
  const expected = Buffer.from(`Bearer ${token}`);
  return sent.length === expected.length && timingSafeEqual(sent, expected);
}
