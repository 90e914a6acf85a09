import { useQuery } from '@tanstack/react-query';
import { queries } from '../../api/queries';
import { Empty, ErrorAlert, Loading } from '../../components/status';
import { dateTime } from '../../lib/format';
import { GithubAppSetup } from './github-app-setup';

/** The GitHub link (OAuth) and the GitHub App's installations (decisions.md §8). */
export function GithubPage() {
  const profile = useQuery(queries.profile());
  const oauth = useQuery(queries.codehostConfigured());
  const installations = useQuery(queries.installations());

  return (
    <div className="stack-lg">
      <h1>GitHub</h1>
      <GithubAppSetup />
      <section className="card stack" aria-labelledby="account-heading">
        <h2 id="account-heading">Your GitHub account</h2>
        {profile.isPending ? <Loading /> : null}
        <ErrorAlert error={profile.error} />
        {profile.data?.codehostUsername ? (
          <p>
            Linked to <strong>@{profile.data.codehostUsername}</strong>. Pull requests you open are reviewed in your account.
          </p>
        ) : profile.data ? (
          <>
            <p>Link your GitHub account so the pull requests you open are reviewed in your account.</p>
            <div>
              <a className="button button-github" href="/auth/codehost">
                Connect GitHub
              </a>
            </div>
            {oauth.data && !oauth.data.configured ? <p className="hint">Sign in with GitHub is not configured on this service (GITHUB_CLIENT_ID, or a GitHub App created here).</p> : null}
          </>
        ) : null}
      </section>

      <section className="card stack" aria-labelledby="app-heading">
        <h2 id="app-heading">GitHub App</h2>
        <p>Install the App on the repositories to review: it receives their pull requests and posts each review in the pull request.</p>
        <div>
          <a className="button button-primary" href="/github/install">
            Install the GitHub App
          </a>
        </div>
        {installations.isPending ? <Loading /> : null}
        <ErrorAlert error={installations.error} />
        {installations.data && !installations.data.configured ? <p className="hint">The GitHub App is not configured on this service.</p> : null}
        {installations.data && installations.data.items.length === 0 ? <Empty title="No installations yet" /> : null}
        <ul className="installation-list">
          {installations.data?.items.map((installation) => (
            <li key={installation.id} className="installation">
              <p className="item-title">
                {installation.account.login} <span className="meta">({installation.account.type})</span>
                {installation.suspended ? <span className="badge badge-status-failed">suspended</span> : null}
              </p>
              <p className="meta">
                {installation.repositorySelection === 'all' ? 'All repositories' : `${installation.repositories.length} repositories`} · installed {dateTime(installation.createdAt)}
              </p>
              {installation.repositories.length > 0 ? (
                <ul className="chips">
                  {installation.repositories.map((repository) => (
                    <li key={repository} className="chip">
                      {repository}
                    </li>
                  ))}
                </ul>
              ) : null}
            </li>
          ))}
        </ul>
      </section>
    </div>
  );
}
