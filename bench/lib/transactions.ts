import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';

/**
 * Transactions a PostgreSQL database committed or rolled back so far. Each backend flushes its
 * statistics about once a second, so the read waits that long; the read is itself one transaction.
 */
export async function databaseTransactions(databaseUrl: string): Promise<number> {
  await sleep(1_200);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ xacts: string }>('select xact_commit + xact_rollback as xacts from pg_stat_database where datname = current_database()');
    return Number(rows[0]!.xacts);
  } finally {
    await client.end();
  }
}

/**
 * The transactions each delivery costs, sent one at a time so that no two share a batch: a
 * deterministic figure where the rate is not (the relay's poll, every 5 s, is the only other work).
 */
export async function transactionsPerDelivery(
  stream: { next(): { body: string; headers: Record<string, string> } },
  url: string,
  databaseUrl: string,
  count = 200,
): Promise<number> {
  const before = await databaseTransactions(databaseUrl);
  for (let sent = 0; sent < count; sent++) {
    const delivery = stream.next();
    const response = await fetch(url, { method: 'POST', headers: delivery.headers, body: delivery.body });
    if (response.status !== 200) throw new Error(`a delivery was answered ${response.status}: ${await response.text()}`);
  }
  // The first read's own transaction is not the deliveries'.
  return ((await databaseTransactions(databaseUrl)) - before - 1) / count;
}
