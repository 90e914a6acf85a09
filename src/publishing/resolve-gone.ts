import type { ChangePublisher, FindingThread, GoneFinding, ThreadResolver } from '../code-hosts/code-host.js';
import type { Logger } from '../lib/logger.js';
import { addressedReplyBody } from './comment-bodies.js';

/**
 * Closes the threads of findings gone from the latest review (decisions.md §8), the same on every
 * host: a thread already resolved, or already answered with the finding's `addressed` marker, is
 * left alone; else it is resolved, and where the host refuses that (a token without the right, a
 * locked thread) answered instead. Each finding is recorded as handled once its thread is, so a
 * retried job starts where this one stopped.
 */
export async function resolveGone(host: ThreadResolver & Pick<ChangePublisher, 'dialect'>, gone: readonly GoneFinding[], sha: string, resolved: (findingId: string) => Promise<void>, log: Logger): Promise<void> {
  const threads = await host.findingThreads();
  for (const { findingId, commentId } of gone) {
    const thread = threads.find((candidate) => candidate.firstNoteId === commentId);
    if (thread !== undefined && !thread.resolved && !answered(thread, findingId, host)) {
      try {
        await host.resolveThread(thread);
      } catch (error) {
        if (!host.mayAnswerInstead(error)) throw error;
        log.info({ err: error, findingId }, 'could not resolve the thread; replying instead');
        await host.replyInThread(thread, addressedReplyBody(findingId, sha, host.dialect));
      }
    }
    await resolved(findingId);
  }
}

const answered = (thread: FindingThread, findingId: string, host: Pick<ChangePublisher, 'dialect'>) => thread.noteBodies.some((body) => host.dialect.markers.addressedIdOf(body) === findingId);
