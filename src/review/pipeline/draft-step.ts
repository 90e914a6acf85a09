import type { KeyValueStore } from '../../adapters/kv/key-value-store.js';
import type { Job, JobQueue } from '../../adapters/queue/job-queue.js';
import type { ReadingHosts } from '../../code-hosts/code-hosts.js';
import type { WebhookDeliveryRepository } from '../../repositories/webhook-delivery-repository.js';
import type { WebhookIntakeRepository } from '../../repositories/webhook-intake-repository.js';
import { readRepositoryConfig } from '../../repository-config/load-repository-config.js';
import { switchedOff } from '../../repository-config/run-policy.js';

export interface DraftDeps {
  readers: ReadingHosts;
  kv: KeyValueStore;
  deliveries: WebhookDeliveryRepository;
  intake: WebhookIntakeRepository;
  queue: JobQueue;
}

/**
 * `undecidedDraft`: a draft's delivery stored without a run, because its repository's configuration
 * was not cached at intake. Reads `.ai-review.yml` (and so caches it: the next drafts of that base
 * commit are decided at intake) and starts the run only if the file reviews drafts. On its own
 * queue, so drafts never wait in front of real reviews.
 */
export async function decideDraft(deps: DraftDeps, job: Job<'undecidedDraft'>): Promise<void> {
  const found = await deps.deliveries.findAwaitingConfig(job.payload.deliveryId);
  // Started already (a retry), or no longer that open draft: its later deliveries decide.
  if (found === undefined || found.delivery.startsReview) return;
  const { pr, owner } = found;
  if (pr.headSha !== found.delivery.headSha || pr.state !== 'open' || !pr.draft) return;
  const reader = await deps.readers.reader(pr, owner);
  const config = await readRepositoryConfig(deps.kv, reader, await reader.configRef());
  if (switchedOff({ triggedBy: 'webhook', draft: true }, config) !== null) return;
  if (!(await deps.intake.startDeferredDraft(job.payload.deliveryId))) return;
  // Enqueued here, or by the relay if this fails: the started delivery is its to enqueue until marked.
  await deps.queue.add('unprocessedWebhookPayload', { deliveryId: job.payload.deliveryId }, { jobId: job.payload.deliveryId });
  await deps.deliveries.markEnqueued([job.payload.deliveryId]);
}
