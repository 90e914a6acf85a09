import { readFile } from 'node:fs/promises';
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

/** A process's CPU time so far (user and system, Linux's /proc; clock ticks of 10 ms). */
async function cpuMs(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  // The fields after the command's closing parenthesis; utime and stime are the 12th and 13th of them.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * What each delivery costs, sent one at a time so that no two share a batch: the database's
 * transactions and the service process's CPU. Both hold where a rate swings with the machine's
 * load (the relay's poll, every 5 s, is the only other work).
 */
export async function costPerDelivery(
  stream: { next(): { body: string; headers: Record<string, string> } },
  url: string,
  service: { databaseUrl: string; pid: number },
  count = 400,
): Promise<{ transactions: number; cpuMs: number }> {
  const before = await databaseTransactions(service.databaseUrl);
  const cpuBefore = await cpuMs(service.pid);
  for (let sent = 0; sent < count; sent++) {
    const delivery = stream.next();
    const response = await fetch(url, { method: 'POST', headers: delivery.headers, body: delivery.body });
    if (response.status !== 200) throw new Error(`a delivery was answered ${response.status}: ${await response.text()}`);
  }
  const cpu = (await cpuMs(service.pid)) - cpuBefore;
  // The first read's own transaction is not the deliveries'.
  return { transactions: ((await databaseTransactions(service.databaseUrl)) - before - 1) / count, cpuMs: cpu / count };
}
