import { useQuery } from '@tanstack/react-query';
import { Link, useNavigate, useSearch } from '@tanstack/react-router';
import { queries } from '../api/queries';
import { InlineSelect } from './field';

/**
 * decisions.md §15: `Personal` or one of the caller's organizations, kept in the URL as `?org=`
 * (every link keeps it). With an organization chosen, its settings are one click away.
 */
export function OrgSwitcher() {
  const orgs = useQuery(queries.orgs());
  const { org } = useSearch({ strict: false });
  const navigate = useNavigate();
  const current = orgs.data?.find((item) => item.id === org);

  return (
    <div className="org-switcher row">
      <InlineSelect
        label="Organization"
        value={current?.id ?? ''}
        onChange={(event) => void navigate({ to: '.', search: (previous: Record<string, unknown>) => ({ ...previous, org: event.target.value || undefined }) })}
      >
        <option value="">Personal</option>
        {orgs.data?.map((item) => (
          <option key={item.id} value={item.id}>
            {item.name}
          </option>
        ))}
      </InlineSelect>
      {current ? (
        <Link to="/orgs/$orgId/settings/members" params={{ orgId: current.id }} className="button button-ghost button-small">
          Organization settings
        </Link>
      ) : (
        <Link to="/orgs/new" className="button button-ghost button-small">
          New organization
        </Link>
      )}
    </div>
  );
}
