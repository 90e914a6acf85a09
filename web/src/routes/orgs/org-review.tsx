import { useQuery } from '@tanstack/react-query';
import { getRouteApi } from '@tanstack/react-router';
import { queries } from '../../api/queries';
import { ErrorAlert, Loading } from '../../components/status';
import { Providers } from '../settings/providers';
import { ReviewSettings } from '../settings/review-settings';
import { canManage } from './org-settings-layout';

const reviewRoute = getRouteApi('/signed-in/orgs/$orgId/settings/review');
const providersRoute = getRouteApi('/signed-in/orgs/$orgId/settings/providers');

/** The organization's review settings: the personal page over its twin of `/workspace`; members read them. */
export function OrgReviewPage() {
  const { orgId } = reviewRoute.useParams();
  const org = useQuery(queries.org(orgId));
  if (org.isPending) return <Loading />;
  if (org.error) return <ErrorAlert error={org.error} />;
  return <ReviewSettings orgId={orgId} readOnly={!canManage(org.data)} />;
}

/** The organization's provider keys: the personal page over its twin of `/byok`; members see the list only. */
export function OrgProvidersPage() {
  const { orgId } = providersRoute.useParams();
  const org = useQuery(queries.org(orgId));
  if (org.isPending) return <Loading />;
  if (org.error) return <ErrorAlert error={org.error} />;
  return <Providers orgId={orgId} readOnly={!canManage(org.data)} />;
}
