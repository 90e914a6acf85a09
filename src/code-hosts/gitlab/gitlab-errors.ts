import { replaceRefusedCharacters } from '../../lib/text-hygiene.js';
import { RetryLaterError } from '../../adapters/queue/job-queue.js';

/** GitLab answered, but not with what was asked (a missing project, a refused position, a bad value). */
export class GitLabApiError extends Error {
  override name = 'GitLabApiError';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A 401 or 403: the token was revoked, expired or lost its `api` scope or its access to the
 * project. Retrying cannot help; the connection is broken until its owner gives a new token.
 */
export class GitLabConnectionBrokenError extends GitLabApiError {
  override name = 'GitLabConnectionBrokenError';
}

/** The GitLab server could not be reached (refused, reset, timed out, or an address the policy refuses). */
export class GitLabUnreachableError extends Error {
  override name = 'GitLabUnreachableError';
}

/**
 * A 429: GitLab says when to come back. A `RetryLaterError`, so a queue job that meets it is
 * retried after that delay instead of spending an attempt on the usual backoff.
 */
export class GitLabRateLimitedError extends RetryLaterError {
  override name = 'GitLabRateLimitedError';
  readonly status = 429;
}

/** When no header says how long to wait (GitLab always sends one; a proxy in front may not). */
const DEFAULT_WAIT_MS = 60_000;
/** Beyond this, a server's answer is treated as nonsense rather than a plan. */
const MAX_WAIT_MS = 60 * 60_000;

/**
 * How long a 429 asks to wait: `Retry-After` (seconds, or an HTTP date), else `RateLimit-Reset`
 * (GitLab's Unix time in seconds when the window resets), else a minute.
 */
export function rateLimitWaitMs(headers: Headers, now = Date.now()): number {
  const retryAfter = headers.get('retry-after')?.trim();
  if (retryAfter !== undefined && retryAfter !== '') {
    const seconds = Number(retryAfter);
    if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, MAX_WAIT_MS);
    const date = Date.parse(retryAfter);
    if (Number.isFinite(date)) return Math.min(Math.max(0, date - now), MAX_WAIT_MS);
  }
  const reset = Number(headers.get('ratelimit-reset'));
  if (Number.isFinite(reset) && reset > 0) return Math.min(Math.max(0, reset * 1000 - now), MAX_WAIT_MS);
  return DEFAULT_WAIT_MS;
}

/** A reason is shown to the user and stored: bounded, and free of what PostgreSQL refuses. */
const MAX_REASON = 500;

/** GitLab's error bodies: `{message: string}`, `{message: {field: [reasons]}}`, or `{error, error_description}`. */
export function gitlabReason(body: unknown, status: number): string {
  return replaceRefusedCharacters(readReason(body) ?? `GitLab answered ${status}`).slice(0, MAX_REASON);
}

function readReason(body: unknown): string | undefined {
  if (typeof body === 'object' && body !== null) {
    const { message, error, error_description: description } = body as { message?: unknown; error?: unknown; error_description?: unknown };
    if (typeof description === 'string') return description;
    if (typeof message === 'string') return message;
    if (typeof message === 'object' && message !== null) {
      return Object.entries(message)
        .map(([field, reasons]) => `${field} ${Array.isArray(reasons) ? reasons.join(', ') : String(reasons)}`)
        .join('; ');
    }
    if (typeof error === 'string') return error;
  }
  return undefined;
}
