import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { getRouteApi, Link, useNavigate, useSearch } from '@tanstack/react-router';
import { useEffect, useMemo, useState } from 'react';
import { queries } from '../api/queries';
import { StatusBadge } from '../components/badges';
import { Empty, ErrorAlert, Loading } from '../components/status';
import { joinPages } from '../lib/cursors';
import { ago } from '../lib/format';
import { InlineSelect } from '../components/field';
import { changeNumber, hostName } from '../lib/repository';

const route = getRouteApi('/signed-in/pulls');

export function PullsPage() {
  const search = route.useSearch();
  const navigate = useNavigate({ from: '/pulls' });
  const [text, setText] = useState(search.q ?? '');
  // The switcher filters (decisions.md §15): an organization shows its pull requests, `Personal` the
  // user's own, as the usage page does. The API's default (everything visible) is for API clients.
  const { org } = useSearch({ strict: false });
  const filters = { search: search.q ?? '', status: search.status ?? 'all', repo: search.repo ?? '', org: org ?? 'personal' };
  const list = useInfiniteQuery(queries.pullRequests(filters));
  // The repository choices: every repository of the latest pull requests, and the one chosen.
  const latest = useQuery(queries.latestPullRequests());
  const repositories = useMemo(
    () => [...new Set([...(latest.data ?? []).map((pr) => pr.repositoryName), ...(search.repo ? [search.repo] : [])])].sort(),
    [latest.data, search.repo],
  );
  const items = useMemo(() => joinPages(list.data?.pages ?? [], (pr) => pr.prId), [list.data]);

  // The search box filters as one types, a moment after the last key.
  useEffect(() => {
    const timer = setTimeout(() => {
      if ((search.q ?? '') !== text) void navigate({ search: (previous) => ({ ...previous, q: text || undefined }), replace: true });
    }, 250);
    return () => clearTimeout(timer);
  }, [text, search.q, navigate]);

  return (
    <div className="stack-lg">
      <header className="page-header">
        <h1>Pull requests</h1>
      </header>
      <div className="toolbar" role="search">
        <label className="visually-hidden" htmlFor="pr-search">
          Search pull requests
        </label>
        <input id="pr-search" type="search" placeholder="Search pull requests" value={text} onChange={(event) => setText(event.target.value)} />
        <InlineSelect
          label="Review status"
          value={search.status ?? 'all'}
          onChange={(event) => void navigate({ search: (previous) => ({ ...previous, status: event.target.value === 'all' ? undefined : event.target.value }) })}
        >
          <option value="all">All</option>
          <option value="pending">Pending</option>
          <option value="completed">Completed</option>
          <option value="failed">Failed</option>
        </InlineSelect>
        <InlineSelect
          label="Repository"
          value={search.repo ?? ''}
          onChange={(event) => void navigate({ search: (previous) => ({ ...previous, repo: event.target.value || undefined }) })}
        >
          <option value="">All repositories</option>
          {repositories.map((repo) => (
            <option key={repo} value={repo}>
              {repo}
            </option>
          ))}
        </InlineSelect>
      </div>

      <ErrorAlert error={list.error} />
      {list.isPending ? <Loading /> : null}
      {!list.isPending && items.length === 0 && !list.error ? (
        <Empty title={filters.search || filters.repo || filters.status !== 'all' ? 'No pull request matches' : 'No pull requests yet'}>
          {filters.search || filters.repo || filters.status !== 'all' ? 'Try other filters.' : 'They arrive from GitHub once the App is installed or a webhook is set up.'}
        </Empty>
      ) : null}
      {items.length > 0 ? (
        <ul className="card pr-list">
          {items.map((pr) => (
            <li key={pr.prId} className="pr-row">
              <div className="pr-row-main">
                <Link to="/pulls/$prId" params={{ prId: String(pr.prId) }} className="item-title">
                  {pr.title}
                </Link>
                <p className="meta">
                  <span className={`badge badge-host-${pr.provider}`}>{hostName(pr.provider)}</span> {pr.org ? <span className="badge">{pr.org.name}</span> : null} {pr.repositoryName} {changeNumber(pr.provider, pr.number)} · {pr.headBranch} →{' '}
                  {pr.baseBranch} · updated {ago(pr.updatedAt)}
                  {pr.url ? (
                    <>
                      {' · '}
                      <a href={pr.url} target="_blank" rel="noreferrer">
                        Open on {hostName(pr.provider)}
                      </a>
                    </>
                  ) : null}
                </p>
              </div>
              <span className="diffstat">
                <span className="add">+{pr.additions ?? 0}</span> <span className="del">−{pr.deletions ?? 0}</span>
              </span>
              <StatusBadge status={pr.status} />
            </li>
          ))}
        </ul>
      ) : null}
      {list.hasNextPage ? (
        <button type="button" className="button" onClick={() => void list.fetchNextPage()} disabled={list.isFetchingNextPage}>
          {list.isFetchingNextPage ? 'Loading…' : 'Load more'}
        </button>
      ) : null}
    </div>
  );
}
