import { useQueries, useQuery } from '@tanstack/react-query';
import { getRouteApi, useNavigate, useSearch } from '@tanstack/react-router';
import { useMemo, useState, type FormEvent } from 'react';
import { withQuery } from '../api/client';
import { queries } from '../api/queries';
import { BarChart, type Series } from '../components/bar-chart';
import { TextField } from '../components/field';
import { ErrorAlert, Loading } from '../components/status';
import { spacePath } from '../lib/spaces';
import { usageRange, type UsageRange } from '../lib/usage-range';

const route = getRouteApi('/signed-in/usage');

/** Models drawn as their own stack; the rest are summed as one. */
const STACKED_MODELS = 5;

const money = (value: number) => (value >= 1 || value === 0 ? `$${value.toFixed(2)}` : `$${value.toPrecision(2)}`);
const tokens = (value: number) => new Intl.NumberFormat(undefined, { notation: value >= 10_000 ? 'compact' : 'standard' }).format(value);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const whole = (value: number) => String(value);

export function UsagePage() {
  const search = route.useSearch();
  // The switcher's organization (decisions.md §15): its usage, from its twin of `/usage`.
  const { org } = useSearch({ strict: false });
  const navigate = useNavigate({ from: '/usage' });
  const range = usageRange(search);
  const [draft, setDraft] = useState<UsageRange>(range);
  const [draftFor, setDraftFor] = useState(range);
  // The fields follow the address when it changes (back and forward), and keep what is typed otherwise.
  if (draftFor.from !== range.from || draftFor.to !== range.to) {
    setDraftFor(range);
    setDraft(range);
  }

  const days = useQuery(queries.usageHistory(range, 'day', undefined, org));
  const models = useQuery(queries.usageHistory(range, 'model', undefined, org));
  const reviews = useQuery(queries.usageReviews(range, org));
  const topModels = useMemo(
    () => [...(models.data?.buckets ?? [])].sort((a, b) => b.costUsd - a.costUsd || a.key.localeCompare(b.key)).slice(0, STACKED_MODELS).map((bucket) => bucket.key),
    [models.data],
  );
  const perModel = useQueries({ queries: topModels.map((modelId) => queries.usageHistory(range, 'day', modelId, org)) });

  const labels = useMemo(() => days.data?.buckets.map((bucket) => bucket.key) ?? [], [days.data]);
  const axisLabels = useMemo(() => labels.map((day) => day.slice(5)), [labels]);
  const spendSeries = useMemo((): Series[] | undefined => {
    if (days.data === undefined || perModel.some((query) => query.data === undefined)) return undefined;
    const series = perModel.map((query, index) => ({ label: topModels[index]!, values: query.data!.buckets.map((bucket) => bucket.costUsd) }));
    const rest = days.data.buckets.map((bucket, day) => Math.max(0, bucket.costUsd - series.reduce((sum, entry) => sum + (entry.values[day] ?? 0), 0)));
    if (rest.some((value) => value > 1e-9)) series.push({ label: 'Other models', values: rest });
    return series.length > 0 ? series : [{ label: 'Spend', values: days.data.buckets.map((bucket) => bucket.costUsd) }];
    // `perModel` is a new array on every render: the chart is redrawn when one of its answers changes.
  }, [days.data, topModels, perModel.map((query) => query.dataUpdatedAt).join()]);
  const tokenSeries = useMemo(
    (): Series[] => [
      { label: 'Input tokens', values: days.data?.buckets.map((bucket) => bucket.inputTokens) ?? [] },
      { label: 'Output tokens', values: days.data?.buckets.map((bucket) => bucket.outputTokens) ?? [] },
    ],
    [days.data],
  );
  const durationLabels = useMemo(() => ['Median (p50)', '90th percentile', 'Longest'], []);
  const durationSeries = useMemo(
    (): Series[] => [{ label: 'Duration', values: reviews.data ? [reviews.data.durationMs.p50, reviews.data.durationMs.p90, reviews.data.durationMs.max] : [] }],
    [reviews.data],
  );
  const modeLabels = useMemo(() => ['Quick', 'Focused', 'Deep'], []);
  const modeSeries = useMemo(
    (): Series[] => [{ label: 'Reviews', values: reviews.data ? [reviews.data.byMode.quick, reviews.data.byMode.focused, reviews.data.byMode.deep] : [] }],
    [reviews.data],
  );

  const apply = (event: FormEvent) => {
    event.preventDefault();
    void navigate({ search: (previous: Record<string, unknown>) => ({ ...previous, from: draft.from, to: draft.to }) });
  };
  const download = () => window.location.assign(withQuery(`${spacePath(org, '/usage')}/export.csv`, { ...range }));
  const error = days.error ?? models.error ?? reviews.error ?? perModel.find((query) => query.error)?.error;

  return (
    <div className="stack-lg">
      <header className="page-header">
        <h1>Usage</h1>
        <button type="button" className="button" onClick={download}>
          Download CSV
        </button>
      </header>

      <form className="card usage-range" onSubmit={apply} aria-label="Date range">
        <TextField label="From" type="date" value={draft.from} max={draft.to} required onChange={(event) => setDraft({ ...draft, from: event.target.value })} />
        <TextField label="To" type="date" value={draft.to} min={draft.from} required onChange={(event) => setDraft({ ...draft, to: event.target.value })} />
        <button type="submit" className="button button-primary">
          Apply
        </button>
      </form>

      <ErrorAlert error={error} title="Could not load usage" />
      {days.isPending ? <Loading /> : null}

      {days.data ? (
        <section className="card">
          <h2>Summary</h2>
          <p className="meta">
            {range.from} – {range.to} (UTC)
          </p>
          <dl className="usage-totals">
            <div>
              <dt>Spend</dt>
              <dd>{money(days.data.total.costUsd)}</dd>
            </div>
            <div>
              <dt>Model calls</dt>
              <dd>{days.data.total.generations}</dd>
            </div>
            <div>
              <dt>Tokens in / out</dt>
              <dd>
                {tokens(days.data.total.inputTokens)} / {tokens(days.data.total.outputTokens)}
              </dd>
            </div>
            <div>
              <dt>Reviews</dt>
              <dd>{reviews.data?.count ?? '–'}</dd>
            </div>
          </dl>
        </section>
      ) : null}

      {spendSeries ? <BarChart title="Spend per day by model" labelHeading="Day" labels={labels} axisLabels={axisLabels} series={spendSeries} stacked format={money} /> : null}
      {days.data ? <BarChart title="Tokens per day" labelHeading="Day" labels={labels} axisLabels={axisLabels} series={tokenSeries} stacked format={tokens} /> : null}
      {reviews.data ? (
        <div className="grid-2">
          <BarChart title="Reviews by mode" labelHeading="Mode" labels={modeLabels} series={modeSeries} format={whole} wholeNumbers />
          <BarChart title="Review durations" labelHeading="Measure" labels={durationLabels} series={durationSeries} format={seconds} />
        </div>
      ) : null}
      {org !== undefined ? <SpendByMember orgId={org} range={range} /> : null}
      {reviews.data ? (
        <p className="meta">
          {reviews.data.byStatus.completed} completed, {reviews.data.byStatus.failed} failed; durations run from the moment a review is queued to its completion.
        </p>
      ) : null}
    </div>
  );
}

/** An organization's spend per member who triggered the calls (decisions.md §15), as a table. */
function SpendByMember({ orgId, range }: { orgId: string; range: UsageRange }) {
  const byMember = useQuery(queries.usageHistory(range, 'member', undefined, orgId));
  const members = useQuery(queries.orgMembers(orgId));
  const name = (key: string) => (key === '(none)' ? 'No member (webhook reviews of others)' : (members.data?.find((member) => member.userId === key)?.name ?? 'A former member'));
  if (byMember.data === undefined) return null;
  return (
    <section className="card" aria-labelledby="by-member-heading">
      <h2 id="by-member-heading">Spend by member</h2>
      {byMember.data.buckets.length === 0 ? (
        <p className="meta">No use in this range.</p>
      ) : (
        <table className="table">
          <thead>
            <tr>
              <th scope="col">Member</th>
              <th scope="col">Model calls</th>
              <th scope="col">Spend</th>
            </tr>
          </thead>
          <tbody>
            {[...byMember.data.buckets]
              .sort((a, b) => b.costUsd - a.costUsd)
              .map((bucket) => (
                <tr key={bucket.key}>
                  <td>{name(bucket.key)}</td>
                  <td>{bucket.generations}</td>
                  <td>{money(bucket.costUsd)}</td>
                </tr>
              ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
