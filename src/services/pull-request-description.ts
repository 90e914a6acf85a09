import type { PullRequest } from '../db/schema/index.js';

/** The pull request's description, from its stored webhook payload; null when it has none. */
export function pullRequestDescription(pr: Pick<PullRequest, 'bodyBlob'>): string | null {
  const body = (pr.bodyBlob as { pull_request?: { body?: unknown } } | null)?.pull_request?.body;
  return typeof body === 'string' && body.trim() !== '' ? body : null;
}
