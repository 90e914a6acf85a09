import type { IncomingMessage } from 'node:http';

export interface DrainBounds {
  maxBytes: number;
  timeoutMs: number;
}

/**
 * Reads and discards what is left of a request's body, so that a refusal sent before the body was
 * read reaches a client that is still sending: closing a socket with unread data makes TCP reset
 * the connection, and the client sees "connection reset" instead of the answer. Bounded in bytes
 * and time; true when the body was read to its end, false when a bound was hit first (the caller
 * then closes the connection, as it would have without this).
 */
export function drainBody(request: IncomingMessage, { maxBytes, timeoutMs }: DrainBounds): Promise<boolean> {
  if (request.complete || request.destroyed) return Promise.resolve(request.complete);
  const declared = Number(request.headers['content-length']);
  if (declared > maxBytes) return Promise.resolve(false);
  return new Promise((resolve) => {
    let read = 0;
    const finish = (whole: boolean) => {
      clearTimeout(timer);
      request.off('data', count).off('end', ended).off('error', failed).off('close', closed);
      if (!whole) request.pause();
      resolve(whole);
    };
    const count = (chunk: Buffer) => {
      read += chunk.length;
      if (read > maxBytes) finish(false);
    };
    const ended = () => finish(true);
    const failed = () => finish(false);
    const closed = () => finish(request.complete);
    const timer = setTimeout(() => finish(false), timeoutMs);
    request.on('data', count).on('end', ended).on('error', failed).on('close', closed);
    request.resume();
  });
}
