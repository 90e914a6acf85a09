import type { Logger } from '../lib/logger.js';
import type { WebhookService } from '../services/webhook-service.js';

/**
 * The other half of the intake's outbox: every interval, deliveries that were stored but could
 * not be enqueued (queue down, process stopped between commit and enqueue) are enqueued.
 */
export class WebhookOutboxRelay {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly webhook: WebhookService,
    private readonly intervalMs: number,
    private readonly log: Logger,
  ) {}

  start() {
    this.timer = setInterval(() => {
      this.running ??= this.tick().finally(() => (this.running = undefined));
    }, this.intervalMs).unref();
  }

  async stop() {
    clearInterval(this.timer);
    await this.running;
  }

  private async tick() {
    try {
      // Younger deliveries are still being enqueued by the request that stored them.
      const count = await this.webhook.dispatchPending(Math.min(2_000, this.intervalMs));
      if (count > 0) this.log.info({ count }, 'relayed stored deliveries to the queue');
    } catch (error) {
      this.log.warn({ err: error }, 'relay pass failed; will retry');
    }
  }
}
