import { pipeline, Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import { EXPORT_COLUMNS, type DayRange, type UsageHistoryRepository, type UsageSums } from '../../repositories/usage-history-repository.js';
import { roundUsd } from '../../services/usage-service.js';
import type { HistoryQuery, HistoryResponse, ReviewsResponse } from './usage-schemas.js';

const DAY_MS = 86_400_000;

/** decisions.md §14: what a user spent, on what, over time; and the calls themselves as CSV. */
export class UsageHistoryService {
  constructor(private readonly records: UsageHistoryRepository) {}

  async history(userId: string, query: HistoryQuery): Promise<HistoryResponse> {
    const { from, to, groupBy, modelId } = query;
    const rows = await this.records.grouped(userId, { from, to }, groupBy, modelId);
    const total: UsageSums = { generations: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 };
    for (const row of rows) {
      total.generations += row.generations;
      total.inputTokens += row.inputTokens;
      total.outputTokens += row.outputTokens;
      total.costUsd += row.costUsd;
    }
    const used = rows.map((row) => ({ ...row, costUsd: roundUsd(row.costUsd) }));
    const buckets = groupBy === 'day' || groupBy === 'week' ? zeroFilled(used, periodKeys({ from, to }, groupBy)) : used;
    return { from, to, groupBy, buckets, total: { ...total, costUsd: roundUsd(total.costUsd) } };
  }

  async reviews(userId: string, range: DayRange): Promise<ReviewsResponse> {
    const runs = await this.records.reviewRuns(userId, range);
    return {
      count: runs.count,
      byMode: { quick: runs.quick, focused: runs.focused, deep: runs.deep },
      byStatus: { completed: runs.completed, failed: runs.failed },
      durationMs: { p50: runs.p50 ?? 0, p90: runs.p90 ?? 0, max: runs.max ?? 0 },
    };
  }

  /**
   * RFC 4180 (CRLF, quotes where a cell needs them) with formula cells defused by a leading `'`,
   * written page by page as the database returns them: backpressure from the client pauses the reads.
   */
  exportCsv(userId: string, range: DayRange): Readable {
    const rows = Readable.from(flatten(this.records.records(userId, range)));
    const csv = stringify({ header: true, columns: [...EXPORT_COLUMNS], record_delimiter: 'windows', escape_formulas: true, quoted_match: /[\r\n]/ });
    // Either side failing (a read, the client gone) destroys both: the reads stop.
    return pipeline(rows, csv, () => undefined);
  }
}

async function* flatten<T>(pages: AsyncIterable<T[]>): AsyncGenerator<T> {
  for await (const page of pages) yield* page;
}

/** Every day of the range, or the Monday of every ISO week it touches. */
function periodKeys(range: DayRange, unit: 'day' | 'week'): string[] {
  const start = Date.parse(range.from);
  const end = Date.parse(range.to);
  const first = unit === 'day' ? start : start - ((new Date(start).getUTCDay() + 6) % 7) * DAY_MS;
  const step = unit === 'day' ? DAY_MS : 7 * DAY_MS;
  const keys: string[] = [];
  for (let time = first; time <= end; time += step) keys.push(new Date(time).toISOString().slice(0, 10));
  return keys;
}

function zeroFilled<Row extends UsageSums & { key: string }>(rows: Row[], keys: string[]): Array<UsageSums & { key: string }> {
  const byKey = new Map(rows.map((row) => [row.key, row]));
  return keys.map((key) => byKey.get(key) ?? { key, generations: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 });
}
