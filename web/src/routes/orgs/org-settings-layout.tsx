import { useQuery } from '@tanstack/react-query';
import { getRouteApi } from '@tanstack/react-router';
import { queries } from '../../api/queries';
import type { Organization } from '../../api/types';
import { SettingsTabs } from '../../components/settings-tabs';
import { ErrorAlert, Loading } from '../../components/status';

const route = getRouteApi('/signed-in/orgs/$orgId/settings');

/** Whether the caller may change things (admin+); members see the settings without their controls. */
export const canManage = (org: Pick<Organization, 'role'> | undefined) => org?.role === 'owner' || org?.role === 'admin';

/** An organization's settings (decisions.md §15): tabs Members, Review, Providers, Installations, Spend limit, and Audit log for admins. */
export function OrgSettingsLayout() {
  const { orgId } = route.useParams();
  const org = useQuery(queries.org(orgId));
  if (org.isPending) return <Loading />;
  if (org.error) {
    return (
      <div className="stack">
        <h1>Organization settings</h1>
        <ErrorAlert error={org.error} />
      </div>
    );
  }
  const tabs = [
    { to: '/orgs/$orgId/settings/members', label: 'Members' },
    { to: '/orgs/$orgId/settings/review', label: 'Review' },
    { to: '/orgs/$orgId/settings/providers', label: 'Providers' },
    { to: '/orgs/$orgId/settings/installations', label: 'Installations' },
    { to: '/orgs/$orgId/settings/spend-limit', label: 'Spend limit' },
    ...(canManage(org.data) ? [{ to: '/orgs/$orgId/settings/audit-log', label: 'Audit log' }] : []),
  ] as const;

  return (
    <div className="stack-lg">
      <div>
        <h1>{org.data.name}</h1>
        <p className="meta">
          Organization settings · your role: <strong>{org.data.role}</strong>
        </p>
      </div>
      <SettingsTabs label="Organization settings" tabs={tabs} params={{ orgId }} />
    </div>
  );
}
