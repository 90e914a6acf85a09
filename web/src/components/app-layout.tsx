import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link, Outlet, useNavigate } from '@tanstack/react-router';
import { api } from '../api/client';
import { OrgSwitcher } from './org-switcher';
import { ErrorAlert } from './status';

const links = [
  { to: '/', label: 'Overview', exact: true },
  { to: '/pulls', label: 'Pull requests', exact: false },
  { to: '/chat', label: 'Chat', exact: false },
  { to: '/usage', label: 'Usage', exact: false },
  { to: '/settings', label: 'Settings', exact: false },
] as const;

/** The signed-in frame: the navigation landmark and the page. */
export function AppLayout() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const signOut = useMutation({
    mutationFn: () => api('DELETE', '/auth/logout'),
    onSuccess: async () => {
      queryClient.clear();
      await navigate({ to: '/login', search: { redirect: undefined } });
    },
  });

  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <Link to="/" className="brand" aria-label="PR Review home">
          <img src="/favicon.svg" alt="" width="24" height="24" />
          <span>PR Review</span>
        </Link>
        <nav aria-label="Main">
          <ul className="nav-links">
            {links.map((link) => (
              <li key={link.to}>
                <Link to={link.to} activeOptions={{ exact: link.exact }} activeProps={{ className: 'active', 'aria-current': 'page' }}>
                  {link.label}
                </Link>
              </li>
            ))}
          </ul>
          <OrgSwitcher />
          <button type="button" className="button button-ghost" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
            Sign out
          </button>
        </nav>
      </header>
      <main id="main" className="page">
        <ErrorAlert error={signOut.error} title="Could not sign out" />
        <Outlet />
      </main>
    </div>
  );
}

/** The frame of the sign-in pages: a centred card. */
export function AuthCard({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <main className="auth-page">
      <div className="auth-card">
        <p className="brand brand-large">
          <img src="/favicon.svg" alt="" width="28" height="28" />
          <span>PR Review</span>
        </p>
        <h1>{title}</h1>
        {children}
      </div>
    </main>
  );
}
