import fp from 'fastify-plugin';
import { EndpointPolicy } from '../../lib/endpoint-policy.js';
import { ModelRouter } from '../../ai/model-router.js';
import { UsageMeter } from '../../ai/usage-meter.js';
import { deriveKey } from '../../lib/crypto/tokens.js';
import { ByokService } from '../../services/byok-service.js';
import { ConversationService } from '../../services/conversation-service.js';
import { AuthService } from '../../services/auth-service.js';
import { CodehostService } from '../../services/codehost-service.js';
import { OneTimeCodes } from '../../services/one-time-codes.js';
import { PullRequestsService } from '../../services/pull-requests-service.js';
import { ReviewService } from '../../services/review-service.js';
import { UsersService } from '../../services/users-service.js';
import { WebhookService } from '../../services/webhook-service.js';
import { AppEventsService } from '../../code-hosts/github/github-app-events.js';
import { GitHubAppService } from '../../code-hosts/github/github-app-service.js';
import { GitLabClient } from '../../code-hosts/gitlab/gitlab-client.js';
import { GitLabService } from '../../code-hosts/gitlab/gitlab-service.js';
import { CodeHosts } from '../../code-hosts/code-hosts.js';
import type { CommandTarget } from '../../code-hosts/code-host.js';
import type { AppCommand } from '../../adapters/queue/job-queue.js';
import { appInUse, githubHost } from '../../code-hosts/github/github-host.js';
import { gitlabHost } from '../../code-hosts/gitlab/gitlab-host.js';
import { GitLabWebhookService } from '../../code-hosts/gitlab/gitlab-webhook-service.js';
import { GitLabConnectionCache } from '../../code-hosts/gitlab/gitlab-connection-cache.js';
import type { BitbucketService } from '../../code-hosts/bitbucket/bitbucket-service.js';
import { bitbucketWiring } from '../../code-hosts/bitbucket/bitbucket-wiring.js';
import type { BitbucketWebhookService } from '../../code-hosts/bitbucket/bitbucket-webhook-service.js';
import { GitHubAppSetupService } from '../../services/github-app-setup-service.js';
import { Operators } from '../../services/operators.js';
import { PublicationService } from '../../publishing/publication-service.js';
import { GitHubTokens } from '../../services/github-token.js';
import { WorkspaceService } from '../../services/workspace-service.js';
import { SpaceAudit } from '../../services/space-audit.js';
import { ByokDirectory } from '../../ai/byok-directory.js';
import { FindingFeedbackService } from '../../services/finding-feedback-service.js';
import { DiffReviewService } from '../../services/diff-review-service.js';
import { SessionService } from '../../services/session-service.js';
import { ApiTokenService } from '../../services/api-token-service.js';
import { PullRequestDiffs } from '../../services/pull-request-diffs.js';
import { PullRequestCode } from '../../services/pull-request-code.js';
import { CodeSnapshots } from '../../code-context/snapshot/code-snapshots.js';
import { SnapshotCache } from '../../code-context/snapshot/snapshot-cache.js';
import { UsageService } from '../../services/usage-service.js';
import { AuditLog } from '../../services/audit-log.js';
import { InvitationService } from '../../services/invitation-service.js';
import { OwnershipMoves } from '../../services/ownership-moves.js';
import { OrgAccess } from '../../services/org-access.js';
import { OrganizationService } from '../../services/organization-service.js';
import { UsageHistoryService } from '../../services/usage-history-service.js';

export interface Services {
  sessions: SessionService;
  /** Personal API tokens (decisions.md §17). */
  apiTokens: ApiTokenService;
  auth: AuthService;
  codehost: CodehostService;
  users: UsersService;
  usage: UsageService;
  usageHistory: UsageHistoryService;
  webhook: WebhookService;
  pullRequests: PullRequestsService;
  byok: ByokService;
  models: ModelRouter;
  reviews: ReviewService;
  conversations: ConversationService;
  workspace: WorkspaceService;
  feedback: FindingFeedbackService;
  /** Reviews of diffs sent by the command line or a script (decisions.md §17). */
  diffReviews: DiffReviewService;
  githubTokens: GitHubTokens;
  githubApp: GitHubAppService;
  githubAppSetup: GitHubAppSetupService;
  publishing: PublicationService;
  appEvents: AppEventsService;
  gitlab: GitLabService;
  gitlabWebhook: GitLabWebhookService;
  bitbucket: BitbucketService;
  bitbucketWebhook: BitbucketWebhookService;
  /** Every code host, by a record's `provider`: reading changes and publishing on them. */
  codeHosts: CodeHosts;
  /** Repository snapshots (decisions.md §11), one cache per process over the shared folder: the reviews and the chat read the same. */
  codeSnapshots: CodeSnapshots;
  /** Where a command is answered (its host, its change), or undefined when it is ignored. */
  commandTarget: (command: AppCommand) => Promise<CommandTarget | undefined>;
  /** Who may do what in an organization (decisions.md §15). */
  orgAccess: OrgAccess;
  organizations: OrganizationService;
  invitations: InvitationService;
  auditLog: AuditLog;
}

/** The services hold the rules; routes and workers only call them. */
export default fp(
  async (app) => {
    const { repos, config } = app;
    const log = app.log.child({ component: 'services' });
    const sessions = new SessionService(repos.sessions, app.kv, log);
    const apiTokens = new ApiTokenService(repos.apiTokens, app.kv, log);
    const directory = new ByokDirectory(repos.byokProviders, app.kv);
    const policy = new EndpointPolicy(config.byokAllowPrivateNetworks);
    const models = new ModelRouter({
      config,
      directory,
      workspace: repos.workspace,
      usage: repos.usage,
      organizations: repos.organizations,
      meter: new UsageMeter(repos.usage, log.child({ component: 'usage' }), app.metrics),
      secretBox: app.secretBox,
      policy,
    });

    const { githubApps } = app;
    const githubTokens = new GitHubTokens({
      apps: githubApps,
      installations: repos.installations,
      users: repos.users,
      github: app.github,
      secretBox: app.secretBox,
      fallback: config.github.token,
      log: log.child({ component: 'github-token' }),
    });
    const feedback = new FindingFeedbackService({ reviews: repos.reviews, feedback: repos.feedback });
    const appEvents = new AppEventsService({
      // The App in use as this process last read it (decisions.md §13: it may be created while running).
      get app() {
        return githubApps.current;
      },
      installations: repos.installations,
      publications: repos.publications,
      queue: app.queue,
      log: log.child({ component: 'github-app' }),
      // `/wrong`, `/wontfix`, `/helpful` replies to the App's inline comments: the same verdict as the API's.
      onFindingReply: ({ pr, findingId, verdict, note }) => feedback.setVerdictByReply(pr, { findingId, verdict, note }),
    });

    const publishing = new PublicationService({
      queue: app.queue,
      publications: repos.publications,
      hosts: () => codeHosts,
      log: log.child({ component: 'publishing' }),
    });
    const codeSnapshots = new CodeSnapshots(new SnapshotCache({ root: config.reviewSnapshot.dir, maxBytes: config.reviewSnapshot.maxBytes }));
    const pullRequestCode = new PullRequestCode({
      snapshots: codeSnapshots,
      users: repos.users,
      hosts: () => codeHosts,
    });
    const diffs = new PullRequestDiffs({ pullRequests: repos.pullRequests, users: repos.users, hosts: () => codeHosts });

    const webhook = new WebhookService({
      users: repos.users,
      intake: repos.webhookIntake,
      deliveries: repos.deliveries,
      queue: app.queue,
      kv: app.kv,
      webhookSecret: () => githubApps.webhookSecret(),
      log: log.child({ component: 'webhook' }),
      appEvents,
    });
    // GitLab base URLs are user-supplied: every call goes through the BYOK address policy.
    const gitlabClient = new GitLabClient({ request: policy.request });
    const gitlabWebhookConnections = new GitLabConnectionCache({ connections: repos.gitlabConnections, secretBox: app.secretBox });
    const orgAccess = new OrgAccess(repos.organizations);
    const auditLog = new AuditLog(repos.audit);
    const moves = new OwnershipMoves({ db: app.db, access: orgAccess, audit: auditLog, users: repos.users });
    const gitlab = new GitLabService({
      access: orgAccess,
      moves,
      connections: repos.gitlabConnections,
      client: gitlabClient,
      secretBox: app.secretBox,
      publicUrl: config.publicUrl,
      webhookConnections: gitlabWebhookConnections,
      log: log.child({ component: 'gitlab' }),
    });
    const bitbucket = bitbucketWiring({
      db: app.db,
      secretBox: app.secretBox,
      kv: app.kv,
      queue: app.queue,
      webhook,
      access: orgAccess,
      moves,
      pullRequests: repos.pullRequests,
      publications: repos.publications,
      apiUrl: config.bitbucket.apiUrl,
      publicUrl: config.publicUrl,
      log,
    });
    const publishLog = log.child({ component: 'publishing' });
    // Read by the services above only when called, once it is built.
    const codeHosts = new CodeHosts({
      github: githubHost({
        github: app.github,
        apiUrl: config.github.apiUrl,
        tokens: githubTokens,
        installations: repos.installations,
        pullRequests: repos.pullRequests,
        users: repos.users,
        app: appInUse(githubApps),
        currentApp: () => githubApps.current,
        log: publishLog,
      }),
      gitlab: gitlabHost({
        client: gitlabClient,
        connections: repos.gitlabConnections,
        mergeRequests: repos.gitlabMergeRequests,
        pullRequests: repos.pullRequests,
        publications: repos.publications,
        target: (connection) => gitlab.target(connection),
        markBroken: (connectionId, reason) => gitlab.markBroken(connectionId, reason),
        kv: app.kv,
        log: publishLog,
      }),
      bitbucket: bitbucket.codeHost,
    });
    const commandTarget = (command: AppCommand) => codeHosts.commandTarget(command);
    const organizations = new OrganizationService({
      db: app.db,
      organizations: repos.organizations,
      users: repos.users,
      access: orgAccess,
      audit: auditLog,
      // Its settings, keys, usage and pull requests go by cascade with its row; its installations and connections return to the deleting owner.
      deletionSteps: [
        (orgId, byUserId, tx) => repos.installations.returnToUser(orgId, byUserId, tx),
        (orgId, byUserId, tx) => repos.gitlabConnections.returnToUser(orgId, byUserId, tx),
        bitbucket.returnToUser,
      ],
      // A member leaves (removed, leaving, deleting their account): every host's installations and connections held in their name, and the pull requests stored under them, stay with the team.
      departureSteps: [
        (orgId, leaving, heirs, tx) => repos.installations.handOver(orgId, leaving, heirs[0]!, tx),
        (orgId, leaving, heirs, tx) => repos.gitlabConnections.handOver(orgId, leaving, heirs, tx),
        bitbucket.handOver,
        (orgId, leaving, heirs, tx) => repos.pullRequests.handOver(orgId, leaving, heirs[0]!, tx),
      ],
    });
    const spaceAudit = new SpaceAudit({ db: app.db, audit: auditLog, users: repos.users });
    const services: Services = {
      sessions,
      apiTokens,
      auth: new AuthService({
        db: app.db,
        users: repos.users,
        otpRecords: repos.otpRecords,
        codes: new OneTimeCodes(repos.otpRecords, deriveKey(config.encryptionKey, 'one-time-codes')),
        sessions,
        apiTokens,
        mailer: app.mailer,
        publicUrl: config.publicUrl,
        log,
      }),
      codehost: new CodehostService({
        db: app.db,
        github: app.github,
        users: repos.users,
        installations: repos.installations,
        sessions,
        kv: app.kv,
        secretBox: app.secretBox,
        publicUrl: config.publicUrl,
        oauthClient: () => githubApps.oauthClient(),
      }),
      users: new UsersService({ db: app.db, users: repos.users, sessionRecords: repos.sessions, sessions, tokenRecords: repos.apiTokens, apiTokens, kv: app.kv, organizations }),
      usage: new UsageService(repos.usage, config.freeAllowanceUsd),
      usageHistory: new UsageHistoryService(repos.usageHistory),
      pullRequests: new PullRequestsService(repos.pullRequests, diffs, orgAccess),
      reviews: new ReviewService({ reviews: repos.reviews, feedback: repos.feedback, queue: app.queue, publishing, log }),
      byok: new ByokService({ config, providers: repos.byokProviders, directory, secretBox: app.secretBox, policy, audit: spaceAudit }),
      models,
      conversations: new ConversationService({
        conversations: repos.conversations,
        pullRequests: repos.pullRequests,
        models,
        diffs,
        code: pullRequestCode,
        hosts: () => codeHosts,
        log: log.child({ component: 'chat' }),
      }),
      workspace: new WorkspaceService(repos.workspace, spaceAudit),
      feedback,
      diffReviews: new DiffReviewService({ diffReviews: repos.diffReviews, feedback: repos.feedback, access: orgAccess, queue: app.queue, log: log.child({ component: 'diff-review' }) }),
      webhook,
      gitlabWebhook: new GitLabWebhookService({ connections: gitlabWebhookConnections, webhook, queue: app.queue, log: log.child({ component: 'webhook' }) }),
      bitbucket: bitbucket.service,
      bitbucketWebhook: bitbucket.webhookService,
      githubTokens,
      githubApp: new GitHubAppService({ apps: githubApps, installations: repos.installations, moves }),
      githubAppSetup: new GitHubAppSetupService({
        apps: githubApps,
        operators: new Operators(config.operatorEmails, repos.users),
        github: app.github,
        kv: app.kv,
        publicUrl: config.publicUrl,
        githubUrl: config.github.url,
        log: log.child({ component: 'github-app' }),
      }),
      publishing,
      appEvents,
      // GitLab base URLs are user-supplied: every call goes through the BYOK address policy.
      gitlab,
      codeHosts,
      codeSnapshots,
      commandTarget,
      orgAccess,
      organizations,
      invitations: new InvitationService({
        db: app.db,
        invitations: repos.invitations,
        organizations: repos.organizations,
        users: repos.users,
        access: orgAccess,
        audit: auditLog,
        mailer: app.mailer,
        publicUrl: config.publicUrl,
        log: log.child({ component: 'organizations' }),
      }),
      auditLog,
    };
    app.decorate('services', services);
    // The AI SDK prints provider warnings (e.g. a JSON schema the endpoint ignores) to the console;
    // they belong in the log, at debug level: they describe the provider, not a fault.
    globalThis.AI_SDK_LOG_WARNINGS = ({ warnings, provider, model }) => log.debug({ warnings, provider, model }, 'AI SDK warnings');
    // Before the database closes (hooks run last-registered first): finish writing accepted deliveries.
    app.addHook('onClose', () => services.webhook.drained());
  },
  { name: 'services', dependencies: ['repositories'] },
);
