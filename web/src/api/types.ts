import type { z } from 'zod';
import type { createdTokenResponse, tokensResponse } from '../../../src/routes/auth/api-token-schemas.js';
import type { sessionResponse, sessionsResponse } from '../../../src/routes/auth/auth-schemas.js';
import type { modelListResponse, probeResponse, providerCardResponse, registeredResponse } from '../../../src/routes/byok/byok-schemas.js';
import type { connectionListResponse as bitbucketConnectionList } from '../../../src/code-hosts/bitbucket/bitbucket-api-schemas.js';
import type { connectionListResponse } from '../../../src/code-hosts/gitlab/gitlab-api-schemas.js';
import type { historyItem, threadItem } from '../../../src/routes/conversation/conversation-schemas.js';
import type { listItem as pullListItem } from '../../../src/routes/pull-requests/pull-requests-schemas.js';
import type { informationItem, listItem as reviewListItem } from '../../../src/routes/review/review-schemas.js';
import type { profileResponse } from '../../../src/routes/users/users-schemas.js';
import type { auditResponse, invitationResponse, memberResponse, organizationResponse } from '../../../src/routes/orgs/orgs-schemas.js';
import type { previewResponse } from '../../../src/routes/invitations/invitations-schemas.js';
import type { orgHistoryResponse, reviewsResponse } from '../../../src/routes/usage/usage-schemas.js';
import type { settingsResponse } from '../../../src/routes/workspace/workspace-schemas.js';

// The API's own response schemas are the source of these types (type-only: no server code ships).
export type SessionInfo = z.output<typeof sessionResponse>;
export type SessionItem = z.output<typeof sessionsResponse>[number];
export type ApiTokenItem = z.output<typeof tokensResponse>[number];
export type CreatedApiToken = z.output<typeof createdTokenResponse>;
export type Profile = z.output<typeof profileResponse>;
export type UsageHistory = z.output<typeof orgHistoryResponse>;
export type UsageReviews = z.output<typeof reviewsResponse>;
export type PullRequestItem = z.output<typeof pullListItem>;
export type ReviewListItem = z.output<typeof reviewListItem>;
export type ReviewInformation = Omit<z.output<typeof informationItem>, 'reviewRawJSON'> & {
  reviewRawJSON: ReviewRaw | null;
  /** The GitHub App's publication (decisions.md §8), when that part is present. */
  publication?: { state: string; reason: string | null; reviewUrl: string | null; summaryCommentUrl: string | null; checkRunUrl: string | null } | null;
  /** Problems in the repository's `.ai-review.yml` (decisions.md §10), when that part is present. */
  configProblems?: Array<{ line: number; message: string }> | null;
  skippedFiles?: SkippedFile[] | null;
};
export type ThreadItem = z.output<typeof threadItem>;
export type HistoryItem = z.output<typeof historyItem>;
export type ModelList = z.output<typeof modelListResponse>;
export type ProbeResult = z.output<typeof probeResponse>;
export type ProviderCard = z.output<typeof providerCardResponse>;
export type Registered = z.output<typeof registeredResponse>;
export type WorkspaceSettings = z.output<typeof settingsResponse>[number];
export type GitLabConnection = z.output<typeof connectionListResponse>[number];
export type BitbucketConnection = z.output<typeof bitbucketConnectionList>[number];

export interface Usage {
  utilizedCost: number;
  allowedExpenditureLimit: number;
}

export interface SkippedFile {
  path: string;
  reason: string;
}

export interface Finding {
  id?: string;
  file: string;
  line: number;
  endLine?: number;
  severity: string;
  confidence?: number;
  title: string;
  comment: string;
  failureScenario?: string;
  suggestedFix?: string;
  verdict?: string | null;
}

/** What the page reads of `reviewRawJSON`; stored reviews of any age fit, hence the optional fields. */
export interface ReviewRaw {
  summary?: { overview?: string; intent?: string; risk?: string; findingsCount?: number };
  comments?: Finding[];
  confidence?: { overall?: number; performance?: number; security?: number };
  agenticFixPrompt?: string | null;
  skippedFiles?: SkippedFile[];
  /** The code blocks each chunk's prompt held (decisions.md §11), the first 400. */
  contextBlocks?: ContextBlockRecord[];
  /** Deep mode's tool calls, refused ones included. */
  toolCalls?: ToolCallRecord[];
}

export interface ContextBlockRecord {
  chunk: number;
  kind: 'scope' | 'definition' | 'caller';
  path: string;
  startLine: number;
  endLine: number;
  about: string;
  elided: boolean;
}

export interface ToolCallRecord {
  chunk: number;
  tool: string;
  input: Record<string, unknown>;
  tokens: number;
  refused?: string;
}

export interface Installation {
  id: number;
  account: { login: string; type: string };
  repositorySelection: string;
  repositories: string[];
  suspended: boolean;
  /** The organization it belongs to; null in its owner's personal space. */
  orgId: string | null;
  createdAt: string;
}

export type Organization = z.output<typeof organizationResponse>;
export type OrgRole = Organization['role'];
export type OrgMember = z.output<typeof memberResponse>;
export type OrgInvitation = z.output<typeof invitationResponse>;
export type AuditPage = z.output<typeof auditResponse>;
export type InvitationPreview = z.output<typeof previewResponse>;
