import type { QueryClient } from '@tanstack/react-query';
import { createRootRouteWithContext, createRoute, createRouter, lazyRouteComponent, Outlet, redirect, retainSearchParams } from '@tanstack/react-router';
import { ApiError } from './api/client';
import { queries } from './api/queries';
import { AppLayout } from './components/app-layout';
import { NotFoundPage } from './routes/not-found';
import { safeRedirect } from './lib/safe-redirect';

export interface RouterContext {
  queryClient: QueryClient;
}

const rootRoute = createRootRouteWithContext<RouterContext>()({
  component: Outlet,
  notFoundComponent: NotFoundPage,
});

const redirectSearch = (search: Record<string, unknown>): { redirect?: string } => ({ redirect: typeof search.redirect === 'string' ? safeRedirect(search.redirect) : undefined });

// The sign-in pages.
const loginRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/login',
  validateSearch: redirectSearch,
  component: lazyRouteComponent(() => import('./routes/login'), 'LoginPage'),
});
const signupRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/signup',
  validateSearch: redirectSearch,
  component: lazyRouteComponent(() => import('./routes/signup'), 'SignupPage'),
});
const forgotPasswordRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/forgot-password',
  component: lazyRouteComponent(() => import('./routes/forgot-password'), 'ForgotPasswordPage'),
});

/** An invitation from an email (decisions.md §15): shown signed out too; accepting asks to sign in first. */
const invitationRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/invitations/$token',
  component: lazyRouteComponent(() => import('./routes/invitation'), 'InvitationPage'),
});

/**
 * Every other page needs a session: without one, to /login and back here afterwards. The
 * organization switcher's choice (`?org=`, decisions.md §15) follows every link.
 */
const signedInRoute = createRoute({
  getParentRoute: () => rootRoute,
  id: 'signed-in',
  validateSearch: (search: Record<string, unknown>): { org?: string } => ({ org: typeof search.org === 'string' && search.org !== '' ? search.org : undefined }),
  search: { middlewares: [retainSearchParams(['org'])] },
  beforeLoad: async ({ context, location }) => {
    try {
      await context.queryClient.ensureQueryData(queries.session());
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) {
        throw redirect({ to: '/login', search: { redirect: safeRedirect(location.href) } });
      }
      throw error;
    }
  },
  component: AppLayout,
});

const overviewRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: '/',
  component: lazyRouteComponent(() => import('./routes/overview'), 'OverviewPage'),
});

const pullsRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: '/pulls',
  validateSearch: (search: Record<string, unknown>): { q?: string; status?: string; repo?: string } => ({
    q: typeof search.q === 'string' ? search.q : undefined,
    status: typeof search.status === 'string' && ['pending', 'completed', 'failed'].includes(search.status) ? search.status : undefined,
    repo: typeof search.repo === 'string' ? search.repo : undefined,
  }),
  component: lazyRouteComponent(() => import('./routes/pulls'), 'PullsPage'),
});

const pullReviewRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: '/pulls/$prId',
  component: lazyRouteComponent(() => import('./routes/pull-review'), 'PullReviewPage'),
});

const chatSearch = (search: Record<string, unknown>): { prId?: string } => ({
  prId: typeof search.prId === 'string' || typeof search.prId === 'number' ? String(search.prId) : undefined,
});
const chatRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: '/chat',
  validateSearch: chatSearch,
  component: lazyRouteComponent(() => import('./routes/chat/chat-page'), 'ChatPage'),
});
const chatThreadRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: '/chat/$id',
  validateSearch: chatSearch,
  component: lazyRouteComponent(() => import('./routes/chat/chat-page'), 'ChatPage'),
});

// Its charting library comes with the page's own chunk: no other page loads it.
const usageRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: '/usage',
  validateSearch: (search: Record<string, unknown>): { from?: string; to?: string } => ({
    from: typeof search.from === 'string' ? search.from : undefined,
    to: typeof search.to === 'string' ? search.to : undefined,
  }),
  component: lazyRouteComponent(() => import('./routes/usage'), 'UsagePage'),
});

const newOrgRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: '/orgs/new',
  component: lazyRouteComponent(() => import('./routes/orgs/new-org'), 'NewOrgPage'),
});
const orgSettingsRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: '/orgs/$orgId/settings',
  component: lazyRouteComponent(() => import('./routes/orgs/org-settings-layout'), 'OrgSettingsLayout'),
});
const orgSettingsIndexRoute = createRoute({
  getParentRoute: () => orgSettingsRoute,
  path: '/',
  beforeLoad: ({ params }) => {
    throw redirect({ to: '/orgs/$orgId/settings/members', params });
  },
});
const orgMembersRoute = createRoute({
  getParentRoute: () => orgSettingsRoute,
  path: '/members',
  component: lazyRouteComponent(() => import('./routes/orgs/org-members'), 'OrgMembersPage'),
});
const orgReviewRoute = createRoute({
  getParentRoute: () => orgSettingsRoute,
  path: '/review',
  component: lazyRouteComponent(() => import('./routes/orgs/org-review'), 'OrgReviewPage'),
});
const orgProvidersRoute = createRoute({
  getParentRoute: () => orgSettingsRoute,
  path: '/providers',
  component: lazyRouteComponent(() => import('./routes/orgs/org-review'), 'OrgProvidersPage'),
});
const orgInstallationsRoute = createRoute({
  getParentRoute: () => orgSettingsRoute,
  path: '/installations',
  component: lazyRouteComponent(() => import('./routes/orgs/org-installations'), 'OrgInstallationsPage'),
});
const orgSpendLimitRoute = createRoute({
  getParentRoute: () => orgSettingsRoute,
  path: '/spend-limit',
  component: lazyRouteComponent(() => import('./routes/orgs/org-spend-limit'), 'OrgSpendLimitPage'),
});
const orgAuditRoute = createRoute({
  getParentRoute: () => orgSettingsRoute,
  path: '/audit-log',
  component: lazyRouteComponent(() => import('./routes/orgs/org-audit-log'), 'OrgAuditLogPage'),
});

const settingsRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: '/settings',
  component: lazyRouteComponent(() => import('./routes/settings/settings-layout'), 'SettingsLayout'),
});
const settingsIndexRoute = createRoute({
  getParentRoute: () => settingsRoute,
  path: '/',
  beforeLoad: () => {
    throw redirect({ to: '/settings/profile' });
  },
});
const settingsProfileRoute = createRoute({
  getParentRoute: () => settingsRoute,
  path: '/profile',
  component: lazyRouteComponent(() => import('./routes/settings/profile'), 'ProfilePage'),
});
const settingsSessionsRoute = createRoute({
  getParentRoute: () => settingsRoute,
  path: '/sessions',
  component: lazyRouteComponent(() => import('./routes/settings/sessions'), 'SessionsPage'),
});
const settingsTokensRoute = createRoute({
  getParentRoute: () => settingsRoute,
  path: '/tokens',
  component: lazyRouteComponent(() => import('./routes/settings/tokens'), 'TokensPage'),
});
const settingsProvidersRoute = createRoute({
  getParentRoute: () => settingsRoute,
  path: '/providers',
  component: lazyRouteComponent(() => import('./routes/settings/providers'), 'ProvidersPage'),
});
const settingsReviewRoute = createRoute({
  getParentRoute: () => settingsRoute,
  path: '/review',
  component: lazyRouteComponent(() => import('./routes/settings/review-settings'), 'ReviewSettingsPage'),
});
const settingsGithubRoute = createRoute({
  getParentRoute: () => settingsRoute,
  path: '/github',
  component: lazyRouteComponent(() => import('./routes/settings/github'), 'GithubPage'),
});
const settingsGitlabRoute = createRoute({
  getParentRoute: () => settingsRoute,
  path: '/gitlab',
  component: lazyRouteComponent(() => import('./routes/settings/gitlab'), 'GitlabPage'),
});
const settingsBitbucketRoute = createRoute({
  getParentRoute: () => settingsRoute,
  path: '/bitbucket',
  component: lazyRouteComponent(() => import('./routes/settings/bitbucket'), 'BitbucketPage'),
});

const routeTree = rootRoute.addChildren([
  loginRoute,
  signupRoute,
  forgotPasswordRoute,
  invitationRoute,
  signedInRoute.addChildren([
    newOrgRoute,
    orgSettingsRoute.addChildren([orgSettingsIndexRoute, orgMembersRoute, orgReviewRoute, orgProvidersRoute, orgInstallationsRoute, orgSpendLimitRoute, orgAuditRoute]),
    overviewRoute,
    pullsRoute,
    pullReviewRoute,
    chatRoute,
    chatThreadRoute,
    usageRoute,
    settingsRoute.addChildren([
      settingsIndexRoute,
      settingsProfileRoute,
      settingsSessionsRoute,
      settingsTokensRoute,
      settingsProvidersRoute,
      settingsReviewRoute,
      settingsGithubRoute,
      settingsGitlabRoute,
      settingsBitbucketRoute,
    ]),
  ]),
]);

export function createAppRouter(queryClient: QueryClient) {
  return createRouter({ routeTree, context: { queryClient }, defaultPreload: 'intent', scrollRestoration: true });
}

declare module '@tanstack/react-router' {
  interface Register {
    router: ReturnType<typeof createAppRouter>;
  }
}
