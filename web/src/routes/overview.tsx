import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { queries } from '../api/queries';
import { ScoreBadge, StatusBadge } from '../components/badges';
import { Empty, ErrorAlert, Loading } from '../components/status';
import { ago, allowanceText } from '../lib/format';
import { changeNumber, hostName, HOSTS } from '../lib/repository';

export function OverviewPage() {
  const reviews = useQuery(queries.recentReviews());
  const usage = useQuery(queries.usage());
  const latest = useQuery(queries.latestPullRequests());
  const profile = useQuery(queries.profile());

  return (
    <div className="stack-lg">
      <header className="page-header">
        <h1>{profile.data ? `Welcome back, ${profile.data.name}` : 'Overview'}</h1>
      </header>

      <div className="grid-2">
        <section className="card" aria-labelledby="recent-reviews">
          <h2 id="recent-reviews">Recent reviews</h2>
          {reviews.isPending ? <Loading /> : null}
          <ErrorAlert error={reviews.error} />
          {reviews.data?.length === 0 ? (
            <Empty title="No reviews yet">
              Reviews appear here when a code host sends a pull request: set up{' '}
              {Object.values(HOSTS).map((host, index, all) => (
                <span key={host.settings}>
                  {index === 0 ? '' : index === all.length - 1 ? ' or ' : ', '}
                  <Link to={host.settings}>{host.name}</Link>
                </span>
              ))}
              .
            </Empty>
          ) : null}
          <ul className="review-list">
            {reviews.data?.map((review) => (
              <li key={review.id} className="review-item">
                <ScoreBadge score={review.status === 'completed' ? review.score : null} />
                <div className="review-item-body">
                  <Link to="/pulls/$prId" params={{ prId: String(review.prId) }} className="item-title">
                    {review.prTitle}
                  </Link>
                  <p className="meta">
                    <span className={`badge badge-host-${review.provider}`}>{hostName(review.provider)}</span> {review.repoFullName} {changeNumber(review.provider, review.prNumber)} ·{' '}
                    <StatusBadge status={review.status} /> · {ago(review.reviewedAt)}
                    {review.url ? (
                      <>
                        {' · '}
                        <a href={review.url} target="_blank" rel="noreferrer">
                          Open on {hostName(review.provider)}
                        </a>
                      </>
                    ) : null}
                  </p>
                  <p className="counts">
                    <span className="count count-critical">{review.criticalCount} critical</span>
                    <span className="count count-warning">{review.warningCount} warnings</span>
                    <span className="count count-suggestion">{review.suggestionCount} suggestions</span>
                  </p>
                </div>
              </li>
            ))}
          </ul>
        </section>

        <div className="stack-lg">
          <section className="card" aria-labelledby="allowance">
            <h2 id="allowance">Free allowance</h2>
            {usage.isPending ? <Loading /> : null}
            <ErrorAlert error={usage.error} />
            {usage.data ? (
              <>
                <p className="allowance">{allowanceText(usage.data.utilizedCost, usage.data.allowedExpenditureLimit)}</p>
                <progress
                  className="meter"
                  max={usage.data.allowedExpenditureLimit || 1}
                  value={Math.min(usage.data.utilizedCost, usage.data.allowedExpenditureLimit)}
                  aria-label="Allowance used"
                />
                <p className="hint">
                  Platform models spend it; <Link to="/settings/providers">your own keys</Link> do not.
                </p>
              </>
            ) : null}
          </section>

          <section className="card" aria-labelledby="latest-pulls">
            <h2 id="latest-pulls">Latest pull requests</h2>
            {latest.isPending ? <Loading /> : null}
            <ErrorAlert error={latest.error} />
            {latest.data?.length === 0 ? <Empty title="No pull requests yet" /> : null}
            <ul className="plain-list">
              {latest.data?.slice(0, 5).map((pr) => (
                <li key={pr.prId}>
                  <Link to="/pulls/$prId" params={{ prId: String(pr.prId) }}>
                    {pr.title}
                  </Link>
                  <span className="meta">
                    {' · '}
                    {hostName(pr.provider)} {pr.repositoryName} · {ago(pr.updatedAt)}
                  </span>
                </li>
              ))}
            </ul>
            <Link to="/pulls" search={{}} className="more-link">
              All pull requests →
            </Link>
          </section>
        </div>
      </div>
    </div>
  );
}
