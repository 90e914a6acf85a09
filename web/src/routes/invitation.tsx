import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { getRouteApi, Link, useNavigate } from '@tanstack/react-router';
import { api, ApiError } from '../api/client';
import { queries } from '../api/queries';
import type { Organization } from '../api/types';
import { AuthCard } from '../components/app-layout';
import { ErrorAlert, Loading } from '../components/status';
import { dateTime } from '../lib/format';

const route = getRouteApi('/invitations/$token');

/**
 * The page an invitation email links to. A signed-out visitor signs in or signs up with the
 * invited address and comes back here (the sign-in pages' `redirect`) to accept.
 */
export function InvitationPage() {
  const { token } = route.useParams();
  const preview = useQuery(queries.invitation(token));
  const session = useQuery({ ...queries.session(), throwOnError: false });
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const accept = useMutation({
    mutationFn: () => api<Organization>('POST', '/invitations/accept', { token }),
    onSuccess: async (org) => {
      await queryClient.invalidateQueries({ queryKey: queries.orgs().queryKey });
      await navigate({ to: '/orgs/$orgId/settings/members', params: { orgId: org.id }, search: { org: org.id } });
    },
  });
  const here = `/invitations/${token}`;

  if (preview.isPending) {
    return (
      <AuthCard title="Invitation">
        <Loading />
      </AuthCard>
    );
  }
  if (preview.error) {
    const gone = preview.error instanceof ApiError && preview.error.status === 410;
    return (
      <AuthCard title={gone ? 'This invitation has expired' : 'Invitation not found'}>
        <ErrorAlert error={preview.error} />
        <p className="meta">Ask the person who invited you for a new invitation.</p>
      </AuthCard>
    );
  }
  const invitation = preview.data;
  const signedIn = session.isSuccess;

  return (
    <AuthCard title={`Join ${invitation.orgName}`}>
      <div className="stack">
        <p>
          You are invited to join <strong>{invitation.orgName}</strong> as <strong>{invitation.role}</strong>.
        </p>
        <p className="meta">
          For {invitation.email} · valid until {dateTime(invitation.expiresAt)}
        </p>
        <ErrorAlert error={accept.error} />
        {session.isPending ? <Loading /> : null}
        {signedIn ? (
          <button type="button" className="button button-primary" onClick={() => accept.mutate()} disabled={accept.isPending}>
            Accept invitation
          </button>
        ) : null}
        {session.isError ? (
          <>
            <p>Sign in, or create an account, with {invitation.email} to accept.</p>
            <div className="row">
              <Link to="/login" search={{ redirect: here }} className="button button-primary">
                Sign in to accept
              </Link>
              <Link to="/signup" search={{ redirect: here }} className="button">
                Create an account
              </Link>
            </div>
          </>
        ) : null}
      </div>
    </AuthCard>
  );
}
