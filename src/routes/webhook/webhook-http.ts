import type { ServiceMetrics } from '../../adapters/metrics/service-metrics.js';
import { AppError } from '../../lib/app-error.js';

/** GitHub caps a delivery at 25 MB; every host's webhook takes as much. */
export const WEBHOOK_BODY_LIMIT_BYTES = 25 * 1024 * 1024;

/** A header's first value. */
export const header = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/**
 * A delivery received and counted by its event and outcome (an error counts as its code), then
 * acknowledged with the answer every host gets.
 */
export async function countedDelivery(metrics: Pick<ServiceMetrics, 'webhookDelivery'>, event: string | undefined, receiving: Promise<string>) {
  const outcome = await receiving.catch((error: unknown) => {
    metrics.webhookDelivery(event, error instanceof AppError ? error.code.toLowerCase() : 'error');
    throw error;
  });
  metrics.webhookDelivery(event, outcome);
  return { message: 'The request has succeeded.' as const };
}
