import type { PullRequest } from '../db/schema/index.js';

/** The pull request's description, from its stored webhook payload; null when it has none. */
export function pullRequestDescription(pr: Pick<PullRequest, 'bodyBlob'>): string | null {
  // GitHub's `pull_request.body`, GitLab's `object_attributes.description`.
  const blob = pr.bodyBlob as { pull_request?: { body?: unknown }; object_attributes?: { description?: unknown } } | null;
  const body = blob?.pull_request?.body ?? blob?.object_attributes?.description;
  return typeof body === 'string' && body.trim() !== '' ? body : null;
}
