import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { api } from '../../api/client';
import { queries } from '../../api/queries';
import { ErrorAlert, Loading } from '../../components/status';
import { dateTime } from '../../lib/format';
import { deviceName } from '../../lib/user-agent';

export function SessionsPage() {
  const sessions = useQuery(queries.sessions());
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const leave = async () => {
    queryClient.clear();
    await navigate({ to: '/login', search: { redirect: undefined } });
  };
  const signOut = useMutation({ mutationFn: () => api('DELETE', '/auth/logout'), onSuccess: leave });
  const signOutEverywhere = useMutation({ mutationFn: () => api('DELETE', '/auth/logout-all'), onSuccess: leave });

  return (
    <div className="stack-lg">
      <h1>Sessions</h1>
      <p className="meta">Where your account is signed in.</p>
      {sessions.isPending ? <Loading /> : null}
      <ErrorAlert error={sessions.error ?? signOut.error ?? signOutEverywhere.error} />
      <ul className="card session-list">
        {sessions.data?.map((session) => (
          <li key={session.id} className="session-row">
            <div>
              <p className="item-title">
                {deviceName(session.userAgent)}
                {session.current ? <span className="badge badge-current">This device</span> : null}
              </p>
              <p className="meta">
                {session.userAgent?.platform ? `${session.userAgent.platform} · ` : ''}signed in {dateTime(session.createdAt)} · expires {dateTime(session.expiresAt)}
              </p>
            </div>
          </li>
        ))}
      </ul>
      <div className="row">
        <button type="button" className="button" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
          Sign out
        </button>
        <button type="button" className="button button-danger" onClick={() => signOutEverywhere.mutate()} disabled={signOutEverywhere.isPending}>
          Sign out everywhere
        </button>
      </div>
    </div>
  );
}
