export interface UsageRange {
  from: string;
  to: string;
}

const DAY_MS = 86_400_000;
const DAY = /^\d{4}-\d{2}-\d{2}$/;
const dayText = (time: number) => new Date(time).toISOString().slice(0, 10);

/** The range in the address, or the API's default: the last 30 days, today included (UTC). */
export function usageRange(search: { from?: string; to?: string }, now = Date.now()): UsageRange {
  const to = search.to !== undefined && DAY.test(search.to) ? search.to : dayText(now);
  const from = search.from !== undefined && DAY.test(search.from) ? search.from : dayText(Date.parse(to) - 29 * DAY_MS);
  return { from, to };
}
