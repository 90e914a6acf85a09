import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { getRouteApi } from '@tanstack/react-router';
import { api } from '../../api/client';
import { queries } from '../../api/queries';
import { ErrorAlert, Loading } from '../../components/status';
import { canManage } from './org-settings-layout';

const route = getRouteApi('/signed-in/orgs/$orgId/settings/installations');

/** One GitHub installation, GitLab or Bitbucket connection as this tab shows it. */
interface Movable {
  key: string;
  name: string;
  kind: string;
  orgId: string | null;
  path: string;
}

/**
 * The organization's installations and connections (decisions.md §15), and the caller's personal ones
 * an owner or admin may move in; pull requests that arrive through them belong to the organization.
 */
export function OrgInstallationsPage() {
  const { orgId } = route.useParams();
  const queryClient = useQueryClient();
  const org = useQuery(queries.org(orgId));
  const installations = useQuery(queries.installations());
  const gitlab = useQuery(queries.gitlabConnections());
  const bitbucket = useQuery(queries.bitbucketConnections());
  const lists = [queries.installations(), queries.gitlabConnections(), queries.bitbucketConnections()];
  const move = useMutation({
    mutationFn: ({ path, to }: { path: string; to: string | null }) => api<unknown>('PATCH', path, { orgId: to }),
    onSuccess: () => Promise.all(lists.map(({ queryKey }) => queryClient.invalidateQueries({ queryKey }))),
  });
  if (org.isPending || installations.isPending || gitlab.isPending || bitbucket.isPending) return <Loading />;
  if (org.error) return <ErrorAlert error={org.error} />;
  if (installations.error) return <ErrorAlert error={installations.error} />;
  if (gitlab.error) return <ErrorAlert error={gitlab.error} />;
  if (bitbucket.error) return <ErrorAlert error={bitbucket.error} />;

  const items: Movable[] = [
    ...installations.data.items.map((item) => ({ key: `github-${item.id}`, name: item.account.login, kind: 'GitHub App installation', orgId: item.orgId, path: `/github/installations/${item.id}` })),
    ...gitlab.data.map((item) => ({ key: `gitlab-${item.id}`, name: item.project.pathWithNamespace, kind: 'GitLab connection', orgId: item.orgId, path: `/gitlab/connections/${item.id}` })),
    ...bitbucket.data.map((item) => ({ key: `bitbucket-${item.id}`, name: item.repository.fullName, kind: 'Bitbucket connection', orgId: item.orgId, path: `/bitbucket/connections/${item.id}` })),
  ];
  const owned = items.filter((item) => item.orgId === orgId);
  const personal = items.filter((item) => item.orgId === null);
  const manager = canManage(org.data);
  return (
    <section className="stack" aria-labelledby="installations-heading">
      <h2 id="installations-heading">Installations</h2>
      <p className="meta">Pull requests that arrive through these belong to {org.data.name}, whoever wrote them; moving one moves its pull requests and reviews.</p>
      <ErrorAlert error={move.error} />
      <MovableList
        title={`In ${org.data.name}`}
        empty="None yet."
        items={owned}
        action={manager ? { label: 'Move out', run: (item) => move.mutate({ path: item.path, to: null }) } : undefined}
        busy={move.isPending}
      />
      {manager ? (
        <MovableList
          title="Your personal installations and connections"
          empty="You have none to move in."
          items={personal}
          action={{ label: `Move into ${org.data.name}`, run: (item) => move.mutate({ path: item.path, to: orgId }) }}
          busy={move.isPending}
        />
      ) : (
        <p className="meta">Only owners and admins move installations and connections.</p>
      )}
    </section>
  );
}

function MovableList({ title, empty, items, action, busy }: { title: string; empty: string; items: Movable[]; action?: { label: string; run: (item: Movable) => void }; busy: boolean }) {
  return (
    <div className="card stack">
      <h3>{title}</h3>
      {items.length === 0 ? (
        <p className="meta">{empty}</p>
      ) : (
        <ul className="stack">
          {items.map((item) => (
            <li key={item.key} className="row">
              <span>
                <strong>{item.name}</strong> <span className="meta">{item.kind}</span>
              </span>
              {action ? (
                <button type="button" className="button" disabled={busy} onClick={() => action.run(item)} aria-label={`${action.label}: ${item.name}`}>
                  {action.label}
                </button>
              ) : null}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

