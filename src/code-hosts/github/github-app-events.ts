import type { z } from 'zod';
import type { FindingVerdict, PullRequest } from '../../db/schema/index.js';
import type { GitHubApp } from '../../adapters/github/github-app.js';
import type { AppCommand, JobQueue } from '../../adapters/queue/job-queue.js';
import { AppError } from '../../lib/app-error.js';
import type { Logger } from '../../lib/logger.js';
import { zodDetails } from '../../lib/zod-details.js';
import { COMMANDING_ASSOCIATIONS, parseCommand, VERDICT_REPLY } from '../../publishing/commands.js';
import type { GitHubInstallationRepository, InstallationFacts } from '../../repositories/github-installation-repository.js';
import type { PublicationRepository } from '../../repositories/publication-repository.js';
import {
  checkRunEventSchema,
  installationEventSchema,
  installationRepositoriesEventSchema,
  issueCommentEventSchema,
  reviewCommentEventSchema,
  type InstallationEvent,
} from '../../routes/webhook/app-event-schemas.js';

/** The GitHub App's events besides `pull_request` and `ping` (decisions.md §8). */
export const APP_EVENTS = new Set(['installation', 'installation_repositories', 'issue_comment', 'check_run', 'pull_request_review_comment']);

/** A reply to one of the App's inline comments that gives a verdict on its finding (decisions.md §10). */
export interface FindingReply {
  /** The pull request of the comment replied to: the verdict is its owner's. */
  pr: PullRequest;
  findingId: string;
  verdict: FindingVerdict;
  note: string | undefined;
  commentId: number;
}

export type FindingReplyHandler = (reply: FindingReply) => Promise<void>;

export interface AppEventsDeps {
  app: GitHubApp | undefined;
  installations: GitHubInstallationRepository;
  publications: PublicationRepository;
  queue: JobQueue;
  log: Logger;
  /** Where verdicts given by reply go (the feedback capability of decisions.md §10). */
  onFindingReply: FindingReplyHandler;
}

function parse<T extends z.ZodType>(schema: T, payload: unknown, event: string): z.infer<T> {
  const parsed = schema.safeParse(payload);
  if (!parsed.success) throw new AppError('BAD_REQUEST', `Invalid ${event} payload`, zodDetails(parsed.error, 'body'));
  return parsed.data;
}

const facts = (installation: InstallationEvent['installation'], senderId: number, selection?: string): InstallationFacts => ({
  id: installation.id,
  senderId,
  accountId: installation.account.id,
  accountLogin: installation.account.login,
  accountType: installation.account.type,
  repositorySelection: selection ?? installation.repository_selection,
});

const repositoryOf = (repo: { id: number; full_name?: string }) => ({ id: repo.id, fullName: repo.full_name ?? '' });

/**
 * The App's events: installations are recorded before the answer; commands and re-requested checks
 * are queued (the answer does not wait for a model or GitHub), and a refused queue is a 503, so
 * GitHub shows the delivery failed and it can be redelivered.
 */
export class AppEventsService {
  constructor(private readonly deps: AppEventsDeps) {}

  /** Whether this service takes `event`: only when the App is configured. */
  handles(event: string): boolean {
    return this.deps.app !== undefined && APP_EVENTS.has(event);
  }

  async receive(event: string, payload: unknown, deliveryId: string): Promise<void> {
    if (event === 'installation') return this.installation(parse(installationEventSchema, payload, event));
    if (event === 'installation_repositories') return this.installationRepositories(parse(installationRepositoriesEventSchema, payload, event));
    if (event === 'issue_comment') return this.issueComment(parse(issueCommentEventSchema, payload, event), deliveryId);
    if (event === 'check_run') return this.checkRun(parse(checkRunEventSchema, payload, event), deliveryId);
    return this.reviewComment(parse(reviewCommentEventSchema, payload, event));
  }

  private async installation(payload: z.infer<typeof installationEventSchema>): Promise<void> {
    const base = facts(payload.installation, payload.sender.id);
    const { id } = payload.installation;
    switch (payload.action) {
      case 'created':
        await this.deps.installations.upsert(base, { repositories: (payload.repositories ?? []).map(repositoryOf), suspended: false, deleted: false });
        return;
      case 'deleted':
        await this.deps.installations.upsert(base, { deleted: true });
        this.deps.app?.dropToken(id);
        return;
      case 'suspend':
        await this.deps.installations.upsert(base, { suspended: true });
        this.deps.app?.dropToken(id);
        return;
      case 'unsuspend':
        await this.deps.installations.upsert(base, { suspended: false });
        return;
      default:
        // new_permissions_accepted and actions added later: the installation's facts are refreshed.
        await this.deps.installations.upsert(base);
    }
  }

  private async installationRepositories(payload: z.infer<typeof installationRepositoriesEventSchema>): Promise<void> {
    const base = facts(payload.installation, payload.sender.id, payload.repository_selection);
    const added = payload.action === 'added' ? payload.repositories_added.map(repositoryOf) : [];
    const removed = payload.action === 'removed' ? payload.repositories_removed.map((repo) => repo.id) : [];
    await this.deps.installations.changeRepositories(base, added, removed);
  }

  private async issueComment(payload: z.infer<typeof issueCommentEventSchema>, deliveryId: string): Promise<void> {
    const { comment } = payload;
    const installation = payload.installation ?? undefined;
    if (payload.action !== 'created' || !payload.issue.pull_request || installation === undefined) return;
    if (!this.mayCommand(comment.user, comment.author_association)) return;
    const body = comment.body ?? '';
    if (parseCommand(body, this.deps.app!.slug) === undefined) return;
    await this.enqueue(deliveryId, {
      installationId: installation.id,
      repositoryName: payload.repository.full_name,
      prNumber: payload.issue.number,
      commentId: comment.id,
      body,
      senderId: comment.user.id,
    });
  }

  private async checkRun(payload: z.infer<typeof checkRunEventSchema>, deliveryId: string): Promise<void> {
    const run = payload.check_run;
    const pull = run.pull_requests[0];
    const installation = payload.installation ?? undefined;
    if (payload.action !== 'rerequested' || installation === undefined || pull === undefined) return;
    const appId = run.app?.id;
    if (run.name !== 'AI review' || (appId !== undefined && String(appId) !== this.deps.app!.id)) return;
    await this.enqueue(deliveryId, {
      installationId: installation.id,
      repositoryName: payload.repository.full_name,
      prNumber: pull.number,
      body: '/review',
      headSha: run.head_sha,
      // Who pressed "Re-run": GitHub names them as the event's sender.
      senderId: payload.sender?.id,
    });
  }

  /** A reply to one of the App's inline comments: `/wrong`, `/wontfix` or `/helpful`, with an optional note. */
  private async reviewComment(payload: z.infer<typeof reviewCommentEventSchema>): Promise<void> {
    const { comment } = payload;
    const parentId = comment.in_reply_to_id ?? undefined;
    if (payload.action !== 'created' || parentId === undefined || !this.mayCommand(comment.user, comment.author_association)) return;
    const match = VERDICT_REPLY.exec((comment.body ?? '').trim());
    if (match === null) return;
    const found = await this.deps.publications.findingOfComment(parentId);
    if (found === undefined) return;
    const reply: FindingReply = {
      pr: found.pr,
      findingId: found.posted.findingId,
      verdict: match[1]!.toLowerCase() as FindingVerdict,
      note: match[2]!.trim() || undefined,
      commentId: comment.id,
    };
    try {
      await this.deps.onFindingReply(reply);
    } catch (error) {
      // A finding no longer in the current review (a push took it away): GitHub's delivery is still fine.
      if (!(error instanceof AppError && error.code === 'NOT_FOUND')) throw error;
      this.deps.log.info({ pullRequestId: reply.pr.id, findingId: reply.findingId }, 'a verdict by reply names a finding the current review no longer holds');
    }
  }

  /** Owners, members and collaborators; never a bot, and never the App itself. */
  private mayCommand(user: { login: string; type: string }, association: string): boolean {
    if (user.type === 'Bot' || user.login === this.deps.app!.botLogin) return false;
    return COMMANDING_ASSOCIATIONS.has(association);
  }

  private async enqueue(deliveryId: string, command: AppCommand): Promise<void> {
    try {
      await this.deps.queue.add('appCommand', command, { jobId: `command-${deliveryId}` });
    } catch (error) {
      this.deps.log.warn({ err: error, deliveryId }, 'could not queue a command');
      throw new AppError('UNAVAILABLE', 'The command could not be queued; GitHub may redeliver it');
    }
  }
}
