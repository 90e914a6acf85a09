import fp from 'fastify-plugin';
import { registerReviewWorkers, type ReviewWorkerOptions } from '../../workers/review-workers.js';
import { WebhookOutboxRelay } from '../../workers/webhook-outbox-relay.js';

export interface WorkerOptions extends ReviewWorkerOptions {
  /** How often the relay looks for stored deliveries without a job. */
  relayIntervalMs?: number;
}

/** The worker role: background loops and the review pipeline's queue consumers. */
export default fp<WorkerOptions>(
  async (app, options) => {
    const relay = new WebhookOutboxRelay(app.services.webhook, options.relayIntervalMs ?? 5_000, app.log.child({ component: 'relay' }));
    relay.start();
    // Registered after the infrastructure, so this runs before the queue and database close.
    app.addHook('onClose', () => relay.stop());
    registerReviewWorkers(app, options);
  },
  { name: 'workers', dependencies: ['services'] },
);
