import { infiniteQueryOptions, queryOptions } from '@tanstack/react-query';
import { get, getText } from './client';
import type {
  AuditPage,
  ApiTokenItem,
  BitbucketConnection,
  GitLabConnection,
  InvitationPreview,
  OrgInvitation,
  OrgMember,
  Organization,
  HistoryItem,
  Installation,
  ModelList,
  Profile,
  ProviderCard,
  PullRequestItem,
  ReviewInformation,
  ReviewListItem,
  SessionInfo,
  SessionItem,
  ThreadItem,
  Usage,
  UsageHistory,
  UsageReviews,
  WorkspaceSettings,
} from './types';
import type { z } from 'zod';
import type { githubAppStatusResponse } from '../../../src/routes/admin/admin-schemas.js';
import { api, ApiError } from './client';
import { nextCursor } from '../lib/cursors';
import { spaceKey, spacePath } from '../lib/spaces';

export const PAGE_SIZE = 20;

export type GitHubAppStatus = z.infer<typeof githubAppStatusResponse>;

/** Query keys and fetchers in one place, so a mutation invalidates exactly what it changed. */
export const queries = {
  session: () => queryOptions({ queryKey: ['session'], queryFn: () => get<SessionInfo>('/auth/session'), staleTime: 60_000, retry: false }),
  profile: () => queryOptions({ queryKey: ['profile'], queryFn: () => get<Profile>('/users') }),
  orgs: () => queryOptions({ queryKey: ['orgs'], queryFn: () => get<Organization[]>('/orgs') }),
  org: (orgId: string) => queryOptions({ queryKey: ['orgs', orgId], queryFn: () => get<Organization>(`/orgs/${encodeURIComponent(orgId)}`), retry: false }),
  orgMembers: (orgId: string) => queryOptions({ queryKey: ['orgs', orgId, 'members'], queryFn: () => get<OrgMember[]>(`/orgs/${encodeURIComponent(orgId)}/members`) }),
  orgInvitations: (orgId: string) =>
    queryOptions({ queryKey: ['orgs', orgId, 'invitations'], queryFn: () => get<OrgInvitation[]>(`/orgs/${encodeURIComponent(orgId)}/invitations`) }),
  orgAudit: (orgId: string) =>
    infiniteQueryOptions({
      queryKey: ['orgs', orgId, 'audit'],
      queryFn: ({ pageParam }) => get<AuditPage>(`/orgs/${encodeURIComponent(orgId)}/audit`, { cursor: pageParam }),
      initialPageParam: undefined as string | undefined,
      getNextPageParam: (lastPage) => lastPage.nextCursor ?? undefined,
    }),
  invitation: (token: string) => queryOptions({ queryKey: ['invitation', token], queryFn: () => get<InvitationPreview>(`/invitations/${encodeURIComponent(token)}`), retry: false }),
  // A space's settings, keys and usage: the caller's own, or (with `orgId`) an organization's.
  usage: (orgId?: string) => queryOptions({ queryKey: ['usage', spaceKey(orgId)], queryFn: () => get<Usage>(spacePath(orgId, '/usage')) }),
  usageHistory: (range: { from: string; to: string }, groupBy: UsageHistory['groupBy'], modelId?: string, orgId?: string) =>
    queryOptions({
      queryKey: ['usage', spaceKey(orgId), 'history', range, groupBy, modelId],
      queryFn: () => get<UsageHistory>(`${spacePath(orgId, '/usage')}/history`, { ...range, groupBy, modelId }),
    }),
  usageReviews: (range: { from: string; to: string }, orgId?: string) =>
    queryOptions({ queryKey: ['usage', spaceKey(orgId), 'reviews', range], queryFn: () => get<UsageReviews>(`${spacePath(orgId, '/usage')}/reviews`, range) }),
  sessions: () => queryOptions({ queryKey: ['sessions'], queryFn: () => get<SessionItem[]>('/auth/sessions') }),
  apiTokens: () => queryOptions({ queryKey: ['api-tokens'], queryFn: () => get<ApiTokenItem[]>('/auth/tokens') }),
  recentReviews: () => queryOptions({ queryKey: ['reviews', 'recent'], queryFn: () => get<ReviewListItem[]>('/review/list') }),
  latestPullRequests: () => queryOptions({ queryKey: ['pull-requests', 'latest'], queryFn: () => get<PullRequestItem[]>('/pull-request/list') }),
  pullRequests: (filters: { search: string; status: string; repo: string; org: string }) =>
    infiniteQueryOptions({
      queryKey: ['pull-requests', 'list', filters],
      queryFn: ({ pageParam }) =>
        get<PullRequestItem[]>('/pull-request/list', {
          search: filters.search || undefined,
          reviewStatus: filters.status,
          repo: filters.repo || undefined,
          org: filters.org || undefined,
          lastUpdatedAt: pageParam,
        }),
      initialPageParam: undefined as string | undefined,
      // The cursor is inclusive (`<=`): the last item comes again and is dropped when pages are joined.
      getNextPageParam: (lastPage) => nextCursor(lastPage, PAGE_SIZE, (item) => item.updatedAt),
    }),
  review: (prId: string) =>
    queryOptions({
      queryKey: ['review', prId],
      queryFn: async () => (await get<ReviewInformation[]>(`/review/information/${encodeURIComponent(prId)}`))[0] ?? null,
      // While the pipeline runs, follow its state.
      refetchInterval: (query) => (query.state.data?.reviewStatus === 'pending' ? 1_500 : false),
    }),
  diff: (prId: string) => queryOptions({ queryKey: ['diff', prId], queryFn: () => getText(`/pull-request/diff/${encodeURIComponent(prId)}`), staleTime: 5 * 60_000, retry: false }),
  threads: () =>
    infiniteQueryOptions({
      queryKey: ['threads'],
      queryFn: ({ pageParam }) => get<ThreadItem[]>('/conversation', { lastUpdatedAt: pageParam }),
      initialPageParam: undefined as string | undefined,
      // Threads come "strictly before" the cursor: no repeat.
      getNextPageParam: (lastPage) => nextCursor(lastPage, PAGE_SIZE, (item) => item.updatedAt),
    }),
  history: (conversationId: string) =>
    queryOptions({ queryKey: ['history', conversationId], queryFn: () => api<HistoryItem[]>('POST', `/conversation/chat/${conversationId}`, {}) }),
  modelList: (orgId?: string) => queryOptions({ queryKey: ['model-list', spaceKey(orgId)], queryFn: () => get<ModelList>(`${spacePath(orgId, '/byok')}/model-list`) }),
  providers: (orgId?: string) => queryOptions({ queryKey: ['providers', spaceKey(orgId)], queryFn: () => get<ProviderCard[]>(`${spacePath(orgId, '/byok')}/providers`) }),
  gitlabConnections: () => queryOptions({ queryKey: ['gitlab-connections'], queryFn: () => get<GitLabConnection[]>('/gitlab/connections') }),
  bitbucketConnections: () => queryOptions({ queryKey: ['bitbucket-connections'], queryFn: () => get<BitbucketConnection[]>('/bitbucket/connections') }),
  workspace: (orgId?: string) =>
    queryOptions({
      queryKey: ['workspace', spaceKey(orgId)],
      queryFn: async () => (await get<WorkspaceSettings[]>(`${spacePath(orgId, '/workspace')}/aiSettings`))[0] ?? null,
    }),
  codehostConfigured: () =>
    queryOptions({ queryKey: ['codehost-configured'], queryFn: () => get<{ configured: boolean }>('/auth/codehost/configured'), staleTime: Infinity }),
  /** The operator's view of the GitHub App; null for everyone else (the endpoint answers them 404). */
  githubAppStatus: () =>
    queryOptions({
      queryKey: ['github-app-status'],
      queryFn: async () => {
        try {
          return await get<GitHubAppStatus>('/admin/github-app');
        } catch (error) {
          if (error instanceof ApiError && error.status === 404) return null;
          throw error;
        }
      },
      retry: false,
    }),
  installations: () =>
    queryOptions({
      queryKey: ['installations'],
      // Until the GitHub App is configured (or its endpoints exist) the page shows its empty state.
      queryFn: async () => {
        try {
          return { configured: true, items: await get<Installation[]>('/github/installations') };
        } catch (error) {
          if (error instanceof Error && 'status' in error && (error.status === 404 || error.status === 503)) return { configured: false, items: [] };
          throw error;
        }
      },
      retry: false,
    }),
};
