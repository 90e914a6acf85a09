import { verify } from '@octokit/webhooks-methods';
import type { KeyValueStore } from '../adapters/kv/key-value-store.js';
import type { JobQueue } from '../adapters/queue/job-queue.js';
import { AppError } from '../lib/app-error.js';
import { Batcher } from '../lib/batcher.js';
import { sha256Hex } from '../lib/crypto/tokens.js';
import type { Logger } from '../lib/logger.js';
import { zodDetails } from '../lib/zod-details.js';
import type { UserRepository } from '../repositories/user-repository.js';
import type { WebhookDeliveryRepository } from '../repositories/webhook-delivery-repository.js';
import type { IntakeItem, IntakeOutcome, WebhookIntakeRepository } from '../repositories/webhook-intake-repository.js';
import { cachedRepositoryConfig } from '../repository-config/load-repository-config.js';
import { switchedOff } from '../repository-config/run-policy.js';
import { pullRequestEventSchema, type PullRequestEvent } from '../routes/webhook/webhook-schemas.js';

/** decisions.md §6: the actions that start a review (on an open pull request; drafts as §10's `drafts` says). */
export const REVIEW_ACTIONS = new Set(['opened', 'reopened', 'synchronize', 'ready_for_review']);

export interface IncomingDelivery {
  event: string | undefined;
  deliveryId: string | undefined;
  signature: string | undefined;
  rawBody: Buffer;
  payload: unknown;
  /** The signed-in caller (a session or an API token), if any. */
  session: { userId: string } | null;
}

/** The events of GitHub's App besides `pull_request` and `ping`: `code-hosts/github/github-app-events.ts`. */
export interface AppEvents {
  handles(event: string): boolean;
  receive(event: string, payload: unknown, deliveryId: string): Promise<void>;
}

export type DeliveryOutcome = 'ping' | 'app-event' | IntakeOutcome;

/** The queue of a stored delivery's job: its run's first step, or the decision of a draft that waits for its configuration. */
type DeliveryQueue = 'unprocessedWebhookPayload' | 'undecidedDraft';

export interface WebhookServiceDeps {
  users: UserRepository;
  intake: WebhookIntakeRepository;
  deliveries: WebhookDeliveryRepository;
  queue: JobQueue;
  /** Holds the repository configurations runs have read, which decide a draft's delivery at intake. */
  kv: KeyValueStore;
  /** GITHUB_WEBHOOK_SECRET, else the secret of the App the manifest flow stored (decisions.md §13). */
  webhookSecret: () => Promise<string | undefined>;
  log: Logger;
  /** The GitHub App's events (decisions.md §8), handled in GitHub's folder. */
  appEvents: AppEvents;
  /** Intake batches written at once (each takes a database connection). */
  writers?: number;
}

/**
 * The intake. A delivery is stored (delivery, pull request, repository link, review start) by one
 * statement before the caller answers 200; concurrent deliveries share that statement (group
 * commit). The job is enqueued right after, without holding the answer, and if the queue is down
 * the relay (`dispatchPending`) enqueues it later. Nothing accepted is lost.
 */
export class WebhookService {
  private readonly intake: Batcher<IntakeItem, IntakeOutcome>;
  private readonly dispatchers: Record<DeliveryQueue, Batcher<string, boolean>>;
  /** Marks of enqueued deliveries still being written; the request does not wait for them. */
  private readonly marking = new Set<Promise<void>>();

  constructor(private readonly deps: WebhookServiceDeps) {
    this.intake = new Batcher((items) => deps.intake.store(items), {
      maxBatchSize: 64,
      concurrency: deps.writers ?? 4,
      // One statement cannot upsert a pull request twice (a merge request's key is allocated in it).
      keys: (item) => [`delivery:${item.deliveryId}`, item.prId === null ? `mr:${item.connectionId}#${item.prNumber}` : `pr:${item.prId}`],
    });
    const dispatcher = (queue: DeliveryQueue) => new Batcher<string, boolean>((deliveryIds) => this.enqueue(queue, deliveryIds), { maxBatchSize: 100, concurrency: 2 });
    this.dispatchers = { unprocessedWebhookPayload: dispatcher('unprocessedWebhookPayload'), undecidedDraft: dispatcher('undecidedDraft') };
  }

  async receive(delivery: IncomingDelivery): Promise<DeliveryOutcome> {
    const bodyJson = delivery.rawBody.toString('utf8');
    const basis = await this.authenticate(delivery, bodyJson);
    const event = delivery.event?.trim();
    if (event === 'ping') return 'ping';
    const deliveryId = delivery.deliveryId ?? `sha256-${sha256Hex(bodyJson)}`;
    if (event !== undefined && this.deps.appEvents.handles(event)) {
      // The App's own events are GitHub's to send: a session cannot stand in for a signature.
      if (basis === 'session') throw new AppError('UNAUTHORIZED', `A ${event} event must be signed with x-hub-signature-256`);
      await this.deps.appEvents.receive(event, delivery.payload, deliveryId);
      return 'app-event';
    }
    if (event !== 'pull_request') {
      throw new AppError('UNPROCESSABLE_ENTITY', event ? `Unsupported event "${event}"` : 'Missing x-github-event header');
    }

    const parsed = pullRequestEventSchema.safeParse(delivery.payload);
    if (!parsed.success) throw new AppError('BAD_REQUEST', 'Invalid pull_request payload', zodDetails(parsed.error, 'body'));
    const payload = parsed.data;

    if (basis === 'session' && (await this.deps.users.findById(delivery.session!.userId))?.codehostUserId !== payload.pull_request.user.id) {
      throw new AppError('FORBIDDEN', 'An unsigned delivery may only carry your own pull requests');
    }

    const outcome = await this.submit(intakeItem(deliveryId, payload, bodyJson));
    // The API document's answer when no registered user is the author; through the App, a pull
    // request nobody here owns (no registered author, an unclaimed installation) is simply not stored.
    if (outcome === 'unknown-author' && (payload.installation ?? null) === null) throw new AppError('INTERNAL', 'Failed to process webhook payload');
    return outcome;
  }

  /**
   * Stores one delivery of any code host (group commit), then queues its job without holding the
   * answer: the relay covers a failed enqueue.
   */
  async submit(item: IntakeItem): Promise<IntakeOutcome> {
    const outcome = await this.intake.submit(await this.decideDraft(item));
    if (outcome === 'review-started') void this.dispatchers.unprocessedWebhookPayload.submit(item.deliveryId);
    if (outcome === 'draft-deferred') void this.dispatchers.undecidedDraft.submit(item.deliveryId);
    return outcome;
  }

  /**
   * A draft is reviewed only when its repository's `.ai-review.yml` says `drafts: true`: decided here
   * from the file a run of the same base commit cached, so a draft that is not reviewed costs no run.
   * Without a cached file the delivery is stored for the `undecidedDraft` job, which reads it.
   */
  private async decideDraft(item: IntakeItem): Promise<IntakeItem> {
    if (!item.reviewable || !item.draft) return item;
    const config = await cachedRepositoryConfig(this.deps.kv, item.repositoryName, item.baseSha);
    if (config === null) return { ...item, reviewable: false, awaitsConfig: true };
    return { ...item, reviewable: switchedOff({ triggedBy: 'webhook', draft: true }, config) === null };
  }

  /** The relay: enqueues deliveries stored while the queue was unreachable. Returns how many. */
  async dispatchPending(olderThanMs = 2_000, limit = 100): Promise<number> {
    const pending = await this.deps.deliveries.listUnqueued(new Date(Date.now() - olderThanMs), limit);
    // A deferred draft whose run started goes on as any run; one still undecided to its own job.
    const ids = (started: boolean) => pending.filter((row) => row.startsReview === started).map((row) => row.deliveryId);
    const enqueued = [...(await this.enqueue('unprocessedWebhookPayload', ids(true))), ...(await this.enqueue('undecidedDraft', ids(false)))];
    return enqueued.filter(Boolean).length;
  }

  /** Waits for the deliveries being written and enqueued (shutdown). */
  async drained(): Promise<void> {
    await this.intake.drained();
    await Promise.all(Object.values(this.dispatchers).map((dispatcher) => dispatcher.drained()));
    await Promise.all(this.marking);
  }

  private async authenticate(delivery: IncomingDelivery, bodyJson: string): Promise<'signature' | 'session' | 'unsigned'> {
    const secret = await this.deps.webhookSecret();
    if (secret !== undefined && delivery.signature !== undefined) {
      const valid = bodyJson.length > 0 && (await verify(secret, bodyJson, delivery.signature));
      if (!valid) throw new AppError('UNAUTHORIZED', 'Invalid x-hub-signature-256');
      return 'signature';
    }
    if (delivery.session !== null) return 'session';
    if (secret !== undefined) throw new AppError('UNAUTHORIZED', 'Missing x-hub-signature-256');
    return 'unsigned';
  }

  /**
   * Enqueues the deliveries in one batch (the job id is the delivery id, so a repeat is ignored)
   * and marks them. A failure leaves the whole batch for the relay.
   */
  private async enqueue(queue: DeliveryQueue, deliveryIds: string[]): Promise<boolean[]> {
    if (deliveryIds.length === 0) return [];
    try {
      await this.deps.queue.addMany(queue, deliveryIds.map((deliveryId) => ({ payload: { deliveryId }, options: { jobId: deliveryId } })));
    } catch (error) {
      this.deps.log.warn({ err: error }, 'queue unavailable: stored deliveries will be enqueued by the relay');
      return deliveryIds.map(() => false);
    }
    // A delivery left unmarked is enqueued again by the relay: the job id dedupes it while the first
    // job exists, and the pipeline skips a commit that is already reviewed.
    const mark = this.deps.deliveries
      .markEnqueued(deliveryIds)
      .catch((error: unknown) => this.deps.log.warn({ err: error }, 'could not mark deliveries enqueued'))
      .finally(() => this.marking.delete(mark));
    this.marking.add(mark);
    return deliveryIds.map(() => true);
  }
}

function intakeItem(deliveryId: string, payload: PullRequestEvent, bodyJson: string): IntakeItem {
  const pr = payload.pull_request;
  const repository = payload.repository;
  return {
    deliveryId,
    event: 'pull_request',
    action: payload.action,
    provider: 'github',
    ownerId: null,
    authorId: pr.user.id,
    installationId: payload.installation?.id ?? null,
    prId: pr.id,
    connectionId: null,
    connectionSecret: null,
    repositoryId: String(repository.id),
    repositoryName: repository.full_name,
    prNumber: pr.number,
    title: pr.title,
    state: pr.state,
    htmlUrl: pr.html_url ?? null,
    diff: pr.diff_url ?? '0',
    draft: pr.draft ?? false,
    merged: pr.merged ?? false,
    headBranch: pr.head.ref,
    baseBranch: pr.base.ref,
    baseSha: pr.base.sha,
    headSha: pr.head.sha,
    mergeCommitSha: pr.merge_commit_sha ?? null,
    commitsCount: pr.commits ?? null,
    additions: pr.additions ?? null,
    deletions: pr.deletions ?? null,
    changedFiles: pr.changed_files ?? null,
    createdAt: pr.created_at,
    updatedAt: pr.updated_at,
    repoId: repository.id,
    repoHtmlUrl: repository.html_url ?? null,
    repoPrivate: repository.private ?? false,
    // A draft's, as its repository's `.ai-review.yml` says (`decideDraft`).
    reviewable: REVIEW_ACTIONS.has(payload.action) && pr.state === 'open',
    awaitsConfig: false,
    bodyJson,
  };
}
