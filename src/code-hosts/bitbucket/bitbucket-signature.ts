import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const PREFIX = 'sha256=';
/** `sha256=` and 64 hex digits. */
const SIGNATURE = /^sha256=[0-9a-fA-F]{64}$/;

/**
 * Whether `X-Hub-Signature` is `sha256=` + the HMAC-SHA256 of the raw body keyed by `secret`
 * (decisions.md §16, facts §1). Compared in constant time on equal-length buffers; a malformed
 * header is refused before any comparison.
 */
export function verifyHubSignature(rawBody: Buffer | string, header: string | undefined, secret: string): boolean {
  if (header === undefined || !SIGNATURE.test(header) || secret.length === 0) return false;
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  const presented = Buffer.from(header.slice(PREFIX.length), 'hex');
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}

/**
 * The connection whose secret signed the delivery, among those of its `repository.uuid` (several
 * users may connect one repository). Every candidate is checked, so the time does not say which matched.
 */
export function matchHubSignature<Candidate extends { secret: string }>(rawBody: Buffer | string, header: string | undefined, candidates: readonly Candidate[]): Candidate | undefined {
  let match: Candidate | undefined;
  for (const candidate of candidates) {
    if (verifyHubSignature(rawBody, header, candidate.secret) && match === undefined) match = candidate;
  }
  return match;
}

/** The signature Bitbucket sends for `rawBody` (tests and the fake sign deliveries with it). */
export const hubSignature = (rawBody: Buffer | string, secret: string) => `${PREFIX}${createHmac('sha256', secret).update(rawBody).digest('hex')}`;

/** A hook's secret: 64 hex characters from the CSPRNG, within Bitbucket's 32 to 128 (decisions.md §16). */
export const newHookSecret = () => randomBytes(32).toString('hex');
