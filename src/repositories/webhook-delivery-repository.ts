import { and, asc, eq, inArray, isNull, lt, or } from 'drizzle-orm';
import type { Database } from '../db/database.js';
import { pullRequests, users, webhookDeliveries, type PullRequest, type User, type WebhookDelivery } from '../db/schema/index.js';

/** Stored deliveries (written by the intake's statement): read for the pipeline, marked by the relay. */
export class WebhookDeliveryRepository {
  constructor(private readonly db: Database) {}

  async find(deliveryId: string): Promise<WebhookDelivery | undefined> {
    const [row] = await this.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.deliveryId, deliveryId)).limit(1);
    return row;
  }

  /** A delivery waiting for its repository configuration, with its pull request and the pull request's owner (whose token reads the file). */
  async findAwaitingConfig(deliveryId: string): Promise<{ delivery: WebhookDelivery; pr: PullRequest; owner: User } | undefined> {
    const [row] = await this.db
      .select({ delivery: webhookDeliveries, pr: pullRequests, owner: users })
      .from(webhookDeliveries)
      .innerJoin(pullRequests, eq(pullRequests.prId, webhookDeliveries.prId))
      .innerJoin(users, eq(users.id, pullRequests.userId))
      .where(and(eq(webhookDeliveries.deliveryId, deliveryId), eq(webhookDeliveries.awaitsConfig, true)))
      .limit(1);
    return row;
  }

  async markEnqueued(deliveryIds: string[]): Promise<void> {
    if (deliveryIds.length === 0) return;
    await this.db.update(webhookDeliveries).set({ enqueuedAt: new Date() }).where(inArray(webhookDeliveries.deliveryId, deliveryIds));
  }

  /** Deliveries that should have a job and have none yet, received before `before`, oldest first. */
  listUnqueued(before: Date, limit: number): Promise<WebhookDelivery[]> {
    return this.db
      .select()
      .from(webhookDeliveries)
      .where(and(or(eq(webhookDeliveries.startsReview, true), eq(webhookDeliveries.awaitsConfig, true)), isNull(webhookDeliveries.enqueuedAt), lt(webhookDeliveries.receivedAt, before)))
      .orderBy(asc(webhookDeliveries.receivedAt))
      .limit(limit);
  }
}
