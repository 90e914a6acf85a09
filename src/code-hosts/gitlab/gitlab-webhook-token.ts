import { constantTimeEqual, sha256Hex } from '../../lib/crypto/tokens.js';

/**
 * Which connection an `X-Gitlab-Token` belongs to, among the connections of the delivery's
 * project (several users, or several instances, may connect the same project id). Both sides are
 * hashed first, so every comparison is of equal length and takes the same time, and every
 * candidate is compared, so the time does not say which one matched.
 */
export function matchWebhookToken<Candidate extends { secret: string }>(token: string | undefined, candidates: Candidate[]): Candidate | undefined {
  if (token === undefined || token.length === 0) return undefined;
  const presented = sha256Hex(token);
  let match: Candidate | undefined;
  for (const candidate of candidates) {
    if (constantTimeEqual(presented, sha256Hex(candidate.secret)) && match === undefined) match = candidate;
  }
  return match;
}
