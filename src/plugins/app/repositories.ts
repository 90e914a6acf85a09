import fp from 'fastify-plugin';
import { ApiTokenRepository } from '../../repositories/api-token-repository.js';
import { ByokProviderRepository } from '../../repositories/byok-provider-repository.js';
import { ConversationRepository } from '../../repositories/conversation-repository.js';
import { FindingFeedbackRepository } from '../../repositories/finding-feedback-repository.js';
import { DiffReviewRepository } from '../../repositories/diff-review-repository.js';
import { GitHubInstallationRepository } from '../../repositories/github-installation-repository.js';
import { PublicationRepository } from '../../repositories/publication-repository.js';
import { GitLabConnectionRepository } from '../../code-hosts/gitlab/gitlab-connection-repository.js';
import { GitLabMergeRequestRepository } from '../../code-hosts/gitlab/gitlab-merge-request-repository.js';
import { AuditRepository } from '../../repositories/audit-repository.js';
import { InvitationRepository } from '../../repositories/invitation-repository.js';
import { OrganizationRepository } from '../../repositories/organization-repository.js';
import { OtpRepository } from '../../repositories/otp-repository.js';
import { PullRequestRepository } from '../../repositories/pull-request-repository.js';
import { ReviewRepository } from '../../repositories/review-repository.js';
import { WebhookDeliveryRepository } from '../../repositories/webhook-delivery-repository.js';
import { HOST_INTAKES } from '../../code-hosts/registry.js';
import { WebhookIntakeRepository } from '../../repositories/webhook-intake-repository.js';
import { WorkspaceRepository } from '../../repositories/workspace-repository.js';
import { SessionRepository } from '../../repositories/session-repository.js';
import { UsageHistoryRepository } from '../../repositories/usage-history-repository.js';
import { UsageRepository } from '../../repositories/usage-repository.js';
import { UserRepository } from '../../repositories/user-repository.js';

export interface Repositories {
  users: UserRepository;
  sessions: SessionRepository;
  apiTokens: ApiTokenRepository;
  otpRecords: OtpRepository;
  usage: UsageRepository;
  usageHistory: UsageHistoryRepository;
  pullRequests: PullRequestRepository;
  webhookIntake: WebhookIntakeRepository;
  deliveries: WebhookDeliveryRepository;
  reviews: ReviewRepository;
  byokProviders: ByokProviderRepository;
  workspace: WorkspaceRepository;
  conversations: ConversationRepository;
  feedback: FindingFeedbackRepository;
  diffReviews: DiffReviewRepository;
  installations: GitHubInstallationRepository;
  publications: PublicationRepository;
  gitlabConnections: GitLabConnectionRepository;
  gitlabMergeRequests: GitLabMergeRequestRepository;
  organizations: OrganizationRepository;
  invitations: InvitationRepository;
  audit: AuditRepository;
}

export default fp(
  async (app) => {
    const repositories: Repositories = {
      users: new UserRepository(app.db),
      sessions: new SessionRepository(app.db),
      apiTokens: new ApiTokenRepository(app.db),
      otpRecords: new OtpRepository(app.db),
      usage: new UsageRepository(app.db),
      usageHistory: new UsageHistoryRepository(app.database),
      pullRequests: new PullRequestRepository(app.database),
      webhookIntake: new WebhookIntakeRepository(app.database, Object.values(HOST_INTAKES)),
      deliveries: new WebhookDeliveryRepository(app.db),
      reviews: new ReviewRepository(app.database, (outcome, mode) => app.metrics.reviews.labels(outcome, mode).inc()),
      byokProviders: new ByokProviderRepository(app.db),
      workspace: new WorkspaceRepository(app.db),
      conversations: new ConversationRepository(app.database),
      feedback: new FindingFeedbackRepository(app.db),
      diffReviews: new DiffReviewRepository(app.db),
      installations: new GitHubInstallationRepository(app.db),
      publications: new PublicationRepository(app.db),
      gitlabConnections: new GitLabConnectionRepository(app.db),
      gitlabMergeRequests: new GitLabMergeRequestRepository(app.db),
      organizations: new OrganizationRepository(app.db),
      invitations: new InvitationRepository(app.db),
      audit: new AuditRepository(app.db),
    };
    app.decorate('repos', repositories);
  },
  { name: 'repositories', dependencies: ['infrastructure', 'metrics'] },
);
