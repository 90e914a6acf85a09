import { z } from 'zod';
import type { BitbucketCommand, JobQueue } from '../../adapters/queue/job-queue.js';
import { AppError } from '../../lib/app-error.js';
import { sha256Hex } from '../../lib/crypto/tokens.js';
import type { Logger } from '../../lib/logger.js';
import { replaceRefusedCharacters } from '../../lib/text-hygiene.js';
import { zodDetails } from '../../lib/zod-details.js';
import type { IntakeItem } from '../../repositories/webhook-intake-repository.js';
import type { DeliveryOutcome, WebhookService } from '../../services/webhook-service.js';
import type { WebhookCandidate, WebhookConnectionCache } from '../webhook-connection-cache.js';
import { isServiceComment } from './bitbucket-bodies.js';
import { matchHubSignature } from './bitbucket-signature.js';
import type { BitbucketConnection } from './bitbucket-tables.js';
import { BITBUCKET_EVENTS, hookSchemaOf, isBitbucketEventKey, type CommentHook, type PullRequestHook } from './bitbucket-webhook-schemas.js';

export interface BitbucketDelivery {
  eventKey: string | undefined;
  /** The same on every retry of a delivery (facts §1). */
  requestUuid: string | undefined;
  signature: string | undefined;
  rawBody: Buffer;
  payload: unknown;
}

export interface BitbucketWebhookDeps {
  /** The connections of each repository, by its UUID, cached. */
  connections: WebhookConnectionCache<string, BitbucketConnection>;
  /** The intake every code host's deliveries go through. */
  webhook: WebhookService;
  /** Commands are run by a worker (`appCommand`), so the webhook answers at once. */
  queue: JobQueue;
  log: Logger;
}

/** What a delivery did: stored like the other hosts', or answered 200 and ignored (a comment that is no command). */
export type BitbucketDeliveryOutcome = DeliveryOutcome | 'ignored';

const repositoryOfPayload = z.object({ repository: z.object({ uuid: z.string().max(64) }) });

/**
 * `POST /webhook/bitbucket` (decisions.md §16). The signature is checked against the secrets of the
 * connections of the payload's repository, in constant time, before anything else is read; the
 * delivery is then stored through the same intake as the other hosts' (durable before the 200,
 * idempotent by `X-Request-UUID`), and its pull request belongs to the connection's owner.
 */
export class BitbucketWebhookService {
  constructor(private readonly deps: BitbucketWebhookDeps) {}

  async receive(delivery: BitbucketDelivery): Promise<BitbucketDeliveryOutcome> {
    const repositoryUuid = repositoryOf(delivery.payload);
    let connection = await this.authenticate(delivery, repositoryUuid, 'cached');
    const eventKey = delivery.eventKey?.trim() ?? '';
    if (!isBitbucketEventKey(eventKey)) throw new AppError('UNPROCESSABLE_ENTITY', eventKey ? `Unsupported event "${eventKey}"` : 'Missing X-Event-Key header');
    const parsed = hookSchemaOf(eventKey).safeParse(delivery.payload);
    if (!parsed.success) throw new AppError('BAD_REQUEST', `Invalid ${eventKey} payload`, zodDetails(parsed.error, 'body'));
    const bodyJson = delivery.rawBody.toString('utf8');
    const keyHash = sha256Hex(delivery.requestUuid ?? `sha256-${sha256Hex(bodyJson)}`).slice(0, 64);

    if (eventKey === BITBUCKET_EVENTS.commentCreated) return this.comment(connection.row, deliveryIdOf(connection.row, keyHash), parsed.data as CommentHook);
    const hook = parsed.data;
    const outcome = await this.deps.webhook.submit(intakeItem(deliveryIdOf(connection.row, keyHash), connection.row, eventKey, hook, bodyJson));
    if (outcome !== 'disconnected') return outcome;
    // The cached connection was deleted or given a new secret elsewhere: as stored now, once.
    connection = await this.authenticate(delivery, repositoryUuid, 'stored');
    const again = await this.deps.webhook.submit(intakeItem(deliveryIdOf(connection.row, keyHash), connection.row, eventKey, hook, bodyJson));
    if (again === 'disconnected') throw invalidSignature();
    return again;
  }

  /**
   * A comment that may be a command or a verdict reply is queued for a worker, which checks its
   * author's permission. The service's own comments (its account's, or any carrying its markers) and
   * every comment on a connection that cannot read permissions (fail closed) are ignored.
   */
  private async comment(connection: BitbucketConnection, deliveryId: string, hook: CommentHook): Promise<BitbucketDeliveryOutcome> {
    const { comment } = hook;
    const body = replaceRefusedCharacters(comment.content.raw);
    if (!connection.commands || comment.deleted === true || comment.user.uuid === connection.accountUuid || isServiceComment(body)) return 'ignored';
    // Every command and verdict starts with a slash; the worker parses it.
    if (!/^\s*\/\w/.test(body)) return 'ignored';
    const command: BitbucketCommand = {
      provider: 'bitbucket',
      connectionId: connection.id,
      number: hook.pullrequest.id,
      commentId: comment.id,
      authorUuid: comment.user.uuid,
      body,
      parentId: comment.parent?.id ?? null,
    };
    try {
      await this.deps.queue.add('appCommand', command, { jobId: `command-${deliveryId}` });
    } catch (error) {
      this.deps.log.warn({ err: error, deliveryId }, 'could not queue a command');
      throw new AppError('UNAVAILABLE', 'The command could not be queued; Bitbucket retries the delivery');
    }
    return 'app-event';
  }

  /**
   * The connection whose webhook secret signed the body; 401 for anything else (which repository it
   * named stays unsaid). A signature matching no cached connection is checked against the stored
   * ones before it is refused, so a connection made on another process counts at once.
   */
  private async authenticate(delivery: BitbucketDelivery, repositoryUuid: string | undefined, source: 'cached' | 'stored'): Promise<WebhookCandidate<BitbucketConnection>> {
    if (repositoryUuid === undefined || delivery.signature === undefined) throw invalidSignature();
    const { connections } = this.deps;
    const match =
      (source === 'cached' ? matchHubSignature(delivery.rawBody, delivery.signature, await connections.candidates(repositoryUuid)) : undefined) ??
      matchHubSignature(delivery.rawBody, delivery.signature, await connections.read(repositoryUuid));
    if (match === undefined) throw invalidSignature();
    return match;
  }
}

const invalidSignature = () => new AppError('UNAUTHORIZED', 'Invalid X-Hub-Signature');
const repositoryOf = (payload: unknown) => {
  const repository = repositoryOfPayload.safeParse(payload);
  return repository.success ? repository.data.repository.uuid : undefined;
};
/** Per connection: two users' connections of one repository each get the delivery, each their own record. */
const deliveryIdOf = (connection: BitbucketConnection, keyHash: string) => `bitbucket-${connection.id}-${keyHash}`;

const text = (value: string) => replaceRefusedCharacters(value);
/** A timestamp PostgreSQL reads; a payload without one (or with nonsense) counts as now. */
const timestamp = (value: string | undefined) => (value !== undefined && Number.isFinite(Date.parse(value)) ? new Date(Date.parse(value)).toISOString() : new Date().toISOString());

function intakeItem(deliveryId: string, connection: BitbucketConnection, eventKey: string, hook: PullRequestHook, bodyJson: string): IntakeItem {
  const pr = hook.pullrequest;
  const action = eventKey.slice('pullrequest:'.length);
  const state = pr.state === 'OPEN' ? 'open' : 'closed';
  return {
    deliveryId,
    event: eventKey,
    action,
    provider: 'bitbucket',
    ownerId: connection.userId,
    // Bitbucket's accounts are UUIDs: no author is linked to a user here, the connection owns it.
    authorId: 0,
    installationId: null,
    // Read or allocated by the intake statement, while the connection holds this secret.
    prId: null,
    connectionId: connection.id,
    connectionSecret: connection.webhookSecret,
    repositoryId: hook.repository.uuid,
    repositoryName: text(hook.repository.full_name),
    prNumber: pr.id,
    title: text(pr.title),
    state,
    htmlUrl: text(pr.links.html.href),
    diff: '0',
    draft: pr.draft === true,
    merged: pr.state === 'MERGED' || eventKey === BITBUCKET_EVENTS.fulfilled,
    headBranch: text(pr.source.branch.name),
    baseBranch: text(pr.destination.branch.name),
    // 12-character hashes (facts §1): the head a push is compared with is the one stored before it.
    baseSha: pr.destination.commit.hash,
    headSha: pr.source.commit.hash,
    mergeCommitSha: null,
    commitsCount: null,
    additions: null,
    deletions: null,
    changedFiles: null,
    createdAt: timestamp(pr.created_on),
    updatedAt: timestamp(pr.updated_on),
    repoId: 0,
    repoHtmlUrl: hook.repository.links?.html.href ?? connection.htmlUrl,
    repoPrivate: false,
    // An update reviews a new head, or a draft made ready whose head was not reviewed yet: the intake
    // starts a run only for a head not already under review or reviewed (decisions.md §6, §16).
    reviewable: (eventKey === BITBUCKET_EVENTS.created || eventKey === BITBUCKET_EVENTS.updated) && state === 'open',
    awaitsConfig: false,
    bodyJson,
  };
}
