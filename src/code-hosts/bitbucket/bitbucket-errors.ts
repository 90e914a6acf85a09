import { RetryLaterError } from '../../adapters/queue/job-queue.js';
import { replaceRefusedCharacters } from '../../lib/text-hygiene.js';

/** Bitbucket answered, but not with what was asked (a missing repository, a bad value). */
export class BitbucketApiError extends Error {
  override name = 'BitbucketApiError';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A 401 or 403: the token was revoked, expired, or lacks a scope or its access to the repository.
 * Retrying cannot help; the connection is broken until its owner gives a new token (decisions.md §16).
 */
export class BitbucketConnectionBrokenError extends BitbucketApiError {
  override name = 'BitbucketConnectionBrokenError';
}

/**
 * A 4xx on an inline comment's anchor: Bitbucket could not place it on the diff (facts §3: what it
 * answers is undocumented; integrators treat any 4xx so). The finding goes to the summary instead.
 */
export class BitbucketRefusedPositionError extends BitbucketApiError {
  override name = 'BitbucketRefusedPositionError';
}

/** A 555: the diff is too large for Bitbucket to compute in time (facts §2); the review fails with that reason. */
export class BitbucketDiffTooLargeError extends BitbucketApiError {
  override name = 'BitbucketDiffTooLargeError';
}

/** Bitbucket could not be reached (refused, reset, timed out), or it redirected somewhere else. */
export class BitbucketUnreachableError extends Error {
  override name = 'BitbucketUnreachableError';
}

/**
 * A 429 (facts §6: "Rate limit for this resource has been exceeded", a rolling hourly window). A
 * `RetryLaterError`, so a queue job that meets it waits and runs again instead of spending an attempt.
 */
export class BitbucketRateLimitedError extends RetryLaterError {
  override name = 'BitbucketRateLimitedError';
  readonly status = 429;
}

/** Bitbucket documents no `Retry-After` (facts §6): without one, a minute, then the queue's backoff. */
const DEFAULT_WAIT_MS = 60_000;
const MAX_WAIT_MS = 60 * 60_000;

/** How long a 429 asks to wait: `Retry-After` in seconds when a proxy or a future Bitbucket sends one, else a minute. */
export function bitbucketWaitMs(retryAfter: string | undefined): number {
  const seconds = Number(retryAfter?.trim() || Number.NaN);
  return Number.isFinite(seconds) && seconds >= 0 ? Math.min(seconds * 1000, MAX_WAIT_MS) : DEFAULT_WAIT_MS;
}

/** A reason is shown to the user and stored: bounded, and free of what PostgreSQL refuses. */
const MAX_REASON = 500;

/**
 * Bitbucket's error body `{type: "error", error: {message, detail?, fields?}}` (facts §5) as one
 * line: the message, and for a scope refusal the scopes it required.
 */
export function bitbucketReason(body: unknown, status: number): string {
  const error = (body as { error?: { message?: unknown; detail?: unknown } } | undefined)?.error;
  let reason = typeof error?.message === 'string' && error.message.trim() !== '' ? error.message.trim() : `Bitbucket answered ${status}`;
  const required = (error?.detail as { required?: unknown } | undefined)?.required;
  if (Array.isArray(required) && required.every((scope) => typeof scope === 'string')) reason += ` (required: ${required.join(', ')})`;
  return replaceRefusedCharacters(reason).slice(0, MAX_REASON);
}
