import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type DatabaseHandle } from '../../src/db/database.js';
import { UsageHistoryRepository, type DayRange, type UsageGroup } from '../../src/repositories/usage-history-repository.js';
import { personal } from '../../src/domain/owners.js';
import { signUp } from '../lib/accounts.js';
import { load } from '../lib/http-load.js';
import { memoryGrowth, memorySamples } from '../lib/memory-samples.js';
import { processCpuSeconds } from '../lib/process-memory.js';
import { report } from '../lib/report.js';
import { startService, type Backend } from '../lib/service-process.js';

/** 1,000,000 calls over a year on PostgreSQL (BENCH_USAGE_ROWS), 100,000 embedded. */
const rows = (backend: Backend) => (backend === 'servers' ? Number(process.env.BENCH_USAGE_ROWS ?? 1_000_000) : 100_000);

/** 8 connections, as in the lists scenario. */
const CONNECTIONS = 8;
const DAY_MS = 86_400_000;
const dayText = (time: number) => new Date(time).toISOString().slice(0, 10);
/** Runs of each statement whose median execution time is reported. */
const DATABASE_RUNS = 20;

/** The median of EXPLAIN ANALYZE's execution time over a few runs (TIMING OFF: no per-node clock). */
async function databaseMs(database: DatabaseHandle, query: SQL | { getSQL(): SQL }): Promise<number> {
  const times: number[] = [];
  for (let run = 0; run < DATABASE_RUNS; run++) {
    const plan = await queryRows<{ 'QUERY PLAN': string }>(database.db, sql`explain (analyze, timing off, costs off) ${query}`);
    const line = plan.map((row) => row['QUERY PLAN']).find((text) => text.startsWith('Execution Time'));
    times.push(Number(/([\d.]+) ms/.exec(line ?? '')?.[1] ?? Number.NaN));
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
}

/**
 * A year of one user's calls, spread evenly: 5 models, 4 kinds, 20 repositories and chats without
 * one, as the meter writes them (the records, then their daily rollup summed from them).
 */
async function seedUsage(database: DatabaseHandle, userId: string, count: number) {
  await database.db.execute(sql`
    insert into usage_records (user_id, at, kind, model_id, source, input_tokens, output_tokens, cost_usd, repository_name, duration_ms)
    select ${userId}::uuid, now() - (n::double precision / ${count}) * interval '365 days',
      (array['review', 'verification', 'chat', 'command'])[n % 4 + 1], 'model-' || (n % 5),
      case when n % 5 = 4 then 'openrouter' else 'platform' end,
      1000 + n % 5000, 100 + n % 800, (n % 1000) / 100000.0,
      case when n % 4 = 2 then null else 'acme/service-' || (n % 20) end, 500 + n % 20000
    from generate_series(1, ${count}) as n`);
  await database.db.execute(sql`
    insert into usage_daily (user_id, day, kind, model_id, source, repository_name, generations, input_tokens, output_tokens, cost_usd)
    select user_id, (at at time zone 'UTC')::date, kind, model_id, source, repository_name, count(*), sum(input_tokens), sum(output_tokens), sum(cost_usd)
    from usage_records where user_id = ${userId}::uuid group by 1, 2, 3, 4, 5, 6`);
  await database.db.execute(sql`analyze usage_records`);
  await database.db.execute(sql`analyze usage_daily`);
}

/**
 * decisions.md §14 at scale: `GET /usage/history` p50/p99 at 8 connections for the default month and
 * a whole year by each grouping, then the year's CSV export read to the end while the service's
 * resident memory is sampled, then the plans (EXPLAIN ANALYZE) of the statements behind them.
 */
export async function usageBench(backend: Backend, durationSeconds: number) {
  const count = rows(backend);
  const service = await startService(backend, {}, { createDatabase: true, sampleMemory: true });
  try {
    const cookie = await signUp(service.url, service.dataDir);
    const session = (await (await fetch(`${service.url}/auth/session`, { headers: { cookie } })).json()) as { userId: string };
    const { userId } = session;

    const started = performance.now();
    await service.inspect((database) => seedUsage(database, userId, count));
    const sizes = await service.inspect(async ({ db }) => {
      const [row] = await queryRows<{ records: string; daily: string; dailyRows: string }>(
        db,
        sql`select pg_size_pretty(pg_total_relation_size('usage_records')) as records, pg_size_pretty(pg_total_relation_size('usage_daily')) as daily, (select count(*) from usage_daily)::text as "dailyRows"`,
      );
      return row!;
    });
    report(`usage [${backend}] loaded`, { records: count, dailyRows: sizes.dailyRows, seconds: (performance.now() - started) / 1000, recordsTable: sizes.records, dailyTable: sizes.daily });
    const url = await service.restart();

    const today = Date.now();
    const month: DayRange = { from: dayText(today - 29 * DAY_MS), to: dayText(today) };
    const year: DayRange = { from: dayText(today - 365 * DAY_MS), to: dayText(today) };
    const range = ({ from, to }: DayRange) => `from=${from}&to=${to}`;
    const grouped = (range: DayRange, groupBy: UsageGroup, modelId?: string) => (database: DatabaseHandle) => new UsageHistoryRepository(database).historyQuery(personal(userId), { ...range, groupBy, modelId });
    const variants: Array<{ name: string; path: string; query?: (database: DatabaseHandle) => SQL | { getSQL(): SQL } }> = [
      { name: 'control: GET /auth/session', path: '/auth/session' },
      { name: 'history, default month by day', path: '/usage/history', query: grouped(month, 'day') },
      { name: 'history, year by day', path: `/usage/history?${range(year)}`, query: grouped(year, 'day') },
      { name: 'history, year by week', path: `/usage/history?${range(year)}&groupBy=week`, query: grouped(year, 'week') },
      { name: 'history, year by model', path: `/usage/history?${range(year)}&groupBy=model`, query: grouped(year, 'model') },
      { name: 'history, year by repository', path: `/usage/history?${range(year)}&groupBy=repository`, query: grouped(year, 'repository') },
      { name: 'history, year of one model by day', path: `/usage/history?${range(year)}&modelId=model-3`, query: grouped(year, 'day', 'model-3') },
      { name: 'reviews, year', path: `/usage/reviews?${range(year)}` },
    ];
    for (const variant of variants) {
      await fetch(`${url}${variant.path}`, { headers: { cookie } });
      const cpuBefore = processCpuSeconds(service.pid);
      const result = await load({ url: `${url}${variant.path}`, headers: { cookie }, duration: durationSeconds, connections: CONNECTIONS });
      // The service's own CPU per request (the database's is apart, below): what a quiet machine's figures scale with.
      const cpuMsPerRequest = ((processCpuSeconds(service.pid) - cpuBefore) * 1000) / Math.max(result.requests, 1);
      report(`${variant.name} [${backend}]`, { 'req/s': result.requestsPerSecond, p50Ms: result.p50Ms, p99Ms: result.p99Ms, cpuMsPerRequest, non2xx: result.non2xx, errors: result.errors });
    }

    // The export of the whole year, read as a client would, the service's memory sampled as it streams
    // (RSS, and within it V8's heap and the buffers outside it).
    const exportStarted = Date.now();
    const cpuBefore = processCpuSeconds(service.pid);
    const response = await fetch(`${url}/usage/export.csv?${range(year)}`, { headers: { cookie } });
    let bytes = 0;
    let lines = 0;
    for await (const chunk of response.body! as AsyncIterable<Uint8Array>) {
      bytes += chunk.length;
      for (const byte of chunk) if (byte === 10) lines++;
    }
    const exportEnded = Date.now();
    const samples = memorySamples(service.memorySamplesFile, exportStarted - 100, exportEnded);
    report(`export.csv, year [${backend}]`, {
      status: response.status,
      rows: lines - 1,
      MiB: bytes / 1024 / 1024,
      seconds: (exportEnded - exportStarted) / 1000,
      cpuSeconds: processCpuSeconds(service.pid) - cpuBefore,
      rssBeforeMiB: (samples[0]?.rss ?? 0) / 1024 / 1024,
      ...memoryGrowth(samples),
    });

    await service.inspect(async (database) => {
      const repository = new UsageHistoryRepository(database);
      const plans = [
        ...variants.filter((variant) => variant.query !== undefined).map((variant) => ({ name: variant.name, query: variant.query!(database) })),
        { name: 'export page, mid-year', query: repository.recordsPageQuery(personal(userId), year, { at: new Date(today - 180 * DAY_MS).toISOString(), id: '0' }) },
      ];
      for (const { name, query } of plans) report(`database: ${name} [${backend}]`, { medianMs: await databaseMs(database, query) });
      for (const { name, query } of plans) {
        const plan = await queryRows<{ 'QUERY PLAN': string }>(database.db, sql`explain (analyze, costs off) ${query}`);
        console.log(`\n-- ${name} [${backend}]\n${plan.map((row) => row['QUERY PLAN']).join('\n')}`);
      }
    });
  } finally {
    await service.cleanup();
  }
}
