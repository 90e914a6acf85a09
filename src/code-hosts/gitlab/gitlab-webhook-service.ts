import { z } from 'zod';
import { isDraft, isMergeRequestNote, mergeRequestEvent, mergeRequestHookSchema, noteHookSchema, GITLAB_EVENTS, type MergeRequestHook, type NoteHook } from './gitlab-webhook-schemas.js';
import type { GitLabCommand, JobQueue } from '../../adapters/queue/job-queue.js';
import type { Logger } from '../../lib/logger.js';
import { parseCommand, VERDICT_REPLY } from '../../publishing/commands.js';
import { matchWebhookToken } from './gitlab-webhook-token.js';
import type { GitLabConnection } from './gitlab-tables.js';
import { AppError } from '../../lib/app-error.js';
import { sha256Hex } from '../../lib/crypto/tokens.js';
import { replaceRefusedCharacters } from '../../lib/text-hygiene.js';
import { zodDetails } from '../../lib/zod-details.js';
import type { IntakeItem } from '../../repositories/webhook-intake-repository.js';
import type { GitLabConnectionCache, WebhookCandidate } from './gitlab-connection-cache.js';
import type { DeliveryOutcome, WebhookService } from '../../services/webhook-service.js';

export interface GitLabDelivery {
  event: string | undefined;
  token: string | undefined;
  /** GitLab 17.4+: the same on every retry of a delivery. */
  idempotencyKey: string | undefined;
  eventUuid: string | undefined;
  rawBody: Buffer;
  payload: unknown;
}

export interface GitLabWebhookDeps {
  /** The connections of each project, cached (decisions.md §12). */
  connections: GitLabConnectionCache;
  /** The intake every code host's deliveries go through. */
  webhook: WebhookService;
  /** Commands are run by a worker (`appCommand`), so the webhook answers at once. */
  queue: JobQueue;
  log: Logger;
}

/** What a GitLab delivery did: stored like a GitHub one, or answered 200 and ignored (a note outside a merge request). */
export type GitLabDeliveryOutcome = DeliveryOutcome | 'ignored';

const projectOfPayload = z.object({ project: z.object({ id: z.number().int().positive() }) });

/**
 * `POST /webhook/gitlab` (decisions.md §12). The token is checked against the secrets of the
 * connections of the payload's project, in constant time, before anything else is read; the
 * delivery is then stored through the same intake as GitHub's (durable before the 200, idempotent
 * by `Idempotency-Key`, else `X-Gitlab-Event-UUID`), and its merge request belongs to the
 * connection's owner.
 */
export class GitLabWebhookService {
  constructor(private readonly deps: GitLabWebhookDeps) {}

  async receive(delivery: GitLabDelivery): Promise<GitLabDeliveryOutcome> {
    const projectId = projectOf(delivery.payload);
    let connection = await this.authenticate(delivery, projectId, 'cached');
    const event = delivery.event?.trim();
    if (event !== GITLAB_EVENTS.mergeRequest && event !== GITLAB_EVENTS.note) {
      throw new AppError('UNPROCESSABLE_ENTITY', event ? `Unsupported event "${event}"` : 'Missing X-Gitlab-Event header');
    }
    const bodyJson = delivery.rawBody.toString('utf8');
    const key = delivery.idempotencyKey ?? delivery.eventUuid ?? `sha256-${sha256Hex(bodyJson)}`;
    const keyHash = sha256Hex(key).slice(0, 64);

    if (event === GITLAB_EVENTS.note) {
      const parsed = noteHookSchema.safeParse(delivery.payload);
      if (!parsed.success) throw new AppError('BAD_REQUEST', 'Invalid Note Hook payload', zodDetails(parsed.error, 'body'));
      return this.note(connection.row, deliveryIdOf(connection.row, keyHash), parsed.data);
    }
    const parsed = mergeRequestHookSchema.safeParse(delivery.payload);
    if (!parsed.success) throw new AppError('BAD_REQUEST', 'Invalid Merge Request Hook payload', zodDetails(parsed.error, 'body'));
    const hook = parsed.data;
    const outcome = await this.deps.webhook.submit(intakeItem(deliveryIdOf(connection.row, keyHash), connection.row, hook, bodyJson));
    if (outcome !== 'disconnected') return outcome;
    // The cached connection was deleted or given a new secret elsewhere: as stored now, once.
    connection = await this.authenticate(delivery, projectId, 'stored');
    const again = await this.deps.webhook.submit(intakeItem(deliveryIdOf(connection.row, keyHash), connection.row, hook, bodyJson));
    if (again === 'disconnected') throw invalidToken();
    return again;
  }

  /**
   * A note that may be a command or a verdict reply is queued for a worker, which checks its author's
   * access; notes on issues, commits and snippets, system notes and the service's own are ignored.
   */
  private async note(connection: GitLabConnection, deliveryId: string, hook: NoteHook): Promise<GitLabDeliveryOutcome> {
    if (!isMergeRequestNote(hook)) return 'ignored';
    const note = hook.object_attributes;
    if (note.author_id === connection.tokenUserId) return 'ignored';
    const body = text(note.note);
    if (parseCommand(body, connection.tokenUsername) === undefined && !VERDICT_REPLY.test(body.trim())) return 'ignored';
    const command: GitLabCommand = { provider: 'gitlab', connectionId: connection.id, iid: hook.merge_request.iid, commentId: note.id, authorId: note.author_id, body, discussionId: note.discussion_id ?? null };
    try {
      await this.deps.queue.add('appCommand', command, { jobId: `command-${deliveryId}` });
    } catch (error) {
      this.deps.log.warn({ err: error, deliveryId }, 'could not queue a command');
      throw new AppError('UNAVAILABLE', 'The command could not be queued; GitLab retries the delivery');
    }
    return 'app-event';
  }

  /**
   * The connection whose webhook secret the token is; 401 for any other token (which project it
   * named stays unsaid). A token that matches no cached connection is checked against the stored
   * ones before it is refused, so a connection made on another process counts at once.
   */
  private async authenticate(delivery: GitLabDelivery, projectId: number | undefined, source: 'cached' | 'stored'): Promise<WebhookCandidate> {
    if (projectId === undefined || delivery.token === undefined || delivery.token.length === 0) throw invalidToken();
    const { connections } = this.deps;
    const match =
      (source === 'cached' ? matchWebhookToken(delivery.token, await connections.candidates(projectId)) : undefined) ??
      matchWebhookToken(delivery.token, await connections.read(projectId));
    if (match === undefined) throw invalidToken();
    return match;
  }
}

const invalidToken = () => new AppError('UNAUTHORIZED', 'Invalid X-Gitlab-Token');
const projectOf = (payload: unknown) => {
  const project = projectOfPayload.safeParse(payload);
  return project.success ? project.data.project.id : undefined;
};
/** Per connection: two users' connections of one project each get the delivery, each their own record. */
const deliveryIdOf = (connection: GitLabConnection, keyHash: string) => `gitlab-${connection.id}-${keyHash}`;

const text = (value: string) => replaceRefusedCharacters(value);
/** A timestamp PostgreSQL reads; a payload without one (or with nonsense) counts as now. */
const timestamp = (value: string | undefined) => (value !== undefined && Number.isFinite(Date.parse(value.replace(/ UTC$/, 'Z'))) ? new Date(Date.parse(value.replace(/ UTC$/, 'Z'))).toISOString() : new Date().toISOString());

function intakeItem(deliveryId: string, connection: GitLabConnection, hook: MergeRequestHook, bodyJson: string): IntakeItem {
  const mr = hook.object_attributes;
  const action = mergeRequestEvent(hook);
  // `locked` is the moment of a merge: still open. Closed and merged are both closed to the rest of the service.
  const state = mr.state === 'opened' || mr.state === 'locked' ? 'open' : 'closed';
  return {
    deliveryId,
    event: GITLAB_EVENTS.mergeRequest,
    action: text(mr.action ?? 'update').slice(0, 64),
    provider: 'gitlab',
    ownerId: connection.userId,
    authorId: mr.author_id,
    installationId: null,
    // Read or allocated by the intake statement, while the connection holds this secret.
    prId: null,
    connectionId: connection.id,
    connectionSecret: connection.webhookSecret,
    repositoryId: String(hook.project.id),
    repositoryName: text(hook.project.path_with_namespace),
    prNumber: mr.iid,
    title: text(mr.title),
    state,
    htmlUrl: text(mr.url),
    diff: '0',
    draft: isDraft(mr),
    merged: mr.state === 'merged' || action.kind === 'state' && action.state === 'merged',
    headBranch: text(mr.source_branch),
    baseBranch: text(mr.target_branch),
    // Not in GitLab's payload: the merge request's `diff_refs` give it when the run reads the diff.
    baseSha: '',
    headSha: text(mr.last_commit.id),
    mergeCommitSha: null,
    commitsCount: null,
    additions: null,
    deletions: null,
    changedFiles: null,
    createdAt: timestamp(mr.created_at),
    updatedAt: timestamp(mr.updated_at),
    repoId: hook.project.id,
    repoHtmlUrl: text(hook.project.web_url),
    repoPrivate: false,
    // A push reviews what it changed (the run reads the diff since the last reviewed commit); `reopen`
    // only when its head was not reviewed yet, which the intake decides as for GitHub.
    reviewable: action.kind !== 'state' && action.kind !== 'refresh' && state === 'open',
    awaitsConfig: false,
    bodyJson,
  };
}
