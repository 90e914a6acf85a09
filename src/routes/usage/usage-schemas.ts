import { z } from 'zod';
import { ORG_USAGE_GROUPS, USAGE_GROUPS } from '../../repositories/usage-history-repository.js';

/** decisions.md §14: at most this many days, both ends included. */
export const MAX_RANGE_DAYS = 366;
export const DEFAULT_RANGE_DAYS = 30;
const DAY_MS = 86_400_000;

const isoDay = z.iso.date({ error: 'must be a date as YYYY-MM-DD' }).meta({ example: '2026-01-31' });
const dayText = (time: number) => new Date(time).toISOString().slice(0, 10);

/**
 * `from` and `to` as whole UTC days, `to` included: 30 days when absent (ending today, or starting
 * at `from`). A range backwards or longer than 366 days is a 400 naming the field.
 */
const rangeFields = { from: isoDay.optional(), to: isoDay.optional() };

function resolveRange<T extends { from?: string; to?: string }>(query: T, context: z.RefinementCtx): Omit<T, 'from' | 'to'> & { from: string; to: string } {
  const span = (DEFAULT_RANGE_DAYS - 1) * DAY_MS;
  const to = query.to ?? (query.from === undefined ? dayText(Date.now()) : dayText(Date.parse(query.from) + span));
  const from = query.from ?? dayText(Date.parse(to) - span);
  const days = (Date.parse(to) - Date.parse(from)) / DAY_MS + 1;
  if (days < 1) context.addIssue({ code: 'custom', path: ['from'], message: 'must not be after to' });
  else if (days > MAX_RANGE_DAYS) context.addIssue({ code: 'custom', path: ['to'], message: `must be at most ${MAX_RANGE_DAYS} days after from (both included)` });
  return { ...query, from, to };
}

export const rangeQuery = z.object(rangeFields).transform(resolveRange);

/** Only this model's use: a chart stacked by model asks once per model. */
const modelId = z.string().trim().min(1).max(256).optional();

export const historyQuery = z.object({ ...rangeFields, groupBy: z.enum(USAGE_GROUPS).default('day'), modelId }).transform(resolveRange);

/** An organization's history also groups by member (decisions.md §15). */
export const orgHistoryQuery = z.object({ ...rangeFields, groupBy: z.enum(ORG_USAGE_GROUPS).default('day'), modelId }).transform(resolveRange);

const sums = z.object({ generations: z.number().int(), inputTokens: z.number().int(), outputTokens: z.number().int(), costUsd: z.number() });

export const historyResponse = z.object({
  from: z.string(),
  to: z.string(),
  groupBy: z.enum(USAGE_GROUPS),
  buckets: z.array(sums.extend({ key: z.string() })),
  total: sums,
});

export const orgHistoryResponse = historyResponse.extend({ groupBy: z.enum(ORG_USAGE_GROUPS) });

export const reviewsResponse = z.object({
  count: z.number().int(),
  byMode: z.object({ quick: z.number().int(), focused: z.number().int(), deep: z.number().int() }),
  byStatus: z.object({ completed: z.number().int(), failed: z.number().int() }),
  durationMs: z.object({ p50: z.number().int(), p90: z.number().int(), max: z.number().int() }),
});

export type HistoryQuery = z.output<typeof orgHistoryQuery>;
export type RangeQuery = z.output<typeof rangeQuery>;
export type HistoryResponse = z.output<typeof historyResponse>;
export type ReviewsResponse = z.output<typeof reviewsResponse>;
