import type { Logger } from './logger.js';

/**
 * Waits for a start step that may take minutes (migrations on a large table, a lock another process
 * holds), saying so in the log every `everyMs` so a slow start is never mistaken for a hung one.
 * A failure names the step.
 */
export async function waitWithProgress<T>(log: Logger, step: string, work: Promise<T>, everyMs = 5_000): Promise<T> {
  const startedAt = Date.now();
  log.info(`${step}…`);
  const timer = setInterval(() => log.info({ waitedMs: Date.now() - startedAt }, `still ${step}`), everyMs);
  try {
    return await work;
  } catch (error) {
    throw new Error(`Start failed while ${step}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  } finally {
    clearInterval(timer);
  }
}
