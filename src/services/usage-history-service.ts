import { pipeline, Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { Owner } from '../domain/owners.js';
import { exportColumns, type DayRange, type UsageHistoryRepository } from '../repositories/usage-history-repository.js';
import type { HistoryQuery, ReviewsResponse } from '../routes/usage/usage-schemas.js';

/** decisions.md §14: what a user or an organization spent, on what, over time; and the calls themselves as CSV. */
export class UsageHistoryService {
  constructor(private readonly records: UsageHistoryRepository) {}

  /** The history as the API's JSON, rendered by the database (the route sends it as it is). */
  history(owner: Owner, query: HistoryQuery): Promise<string> {
    return this.records.history(owner, query);
  }

  async reviews(owner: Owner, range: DayRange): Promise<ReviewsResponse> {
    const runs = await this.records.reviewRuns(owner, range);
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
  exportCsv(owner: Owner, range: DayRange): Readable {
    const rows = Readable.from(flatten(this.records.records(owner, range)));
    const csv = stringify({ header: true, columns: [...exportColumns(owner)], record_delimiter: 'windows', escape_formulas: true, quoted_match: /[\r\n]/ });
    // Either side failing (a read, the client gone) destroys both: the reads stop.
    return pipeline(rows, csv, () => undefined);
  }
}

async function* flatten<T>(pages: AsyncIterable<T[]>): AsyncGenerator<T> {
  for await (const page of pages) yield* page;
}
