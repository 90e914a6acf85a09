import { createHmac, randomUUID } from 'node:crypto';
import { examplePayload, type PayloadOverrides } from '../../test/helpers/webhooks.js';

const PR_ID_MARK = 987_654_321_012;
const SHA_MARK = 'feedfacefeedfacefeedfacefeedfacefeedface';
const FIRST_PR_ID = 800_000_000_000;

/**
 * An endless supply of distinct, signed, real `opened` deliveries (or of the action and draft flag
 * given): GitHub's example payload with a new pull request id and head commit each time, signed
 * with HMAC-SHA256 as GitHub signs.
 * The JSON is built by splicing a template, so the load generator spends its time on signing only.
 */
export class DeliveryStream {
  /** The template cut at the markers; odd entries are the markers themselves. */
  private readonly parts: string[];
  private sequence = 0;

  constructor(
    private readonly secret: string,
    authorId: number,
    overrides: Pick<PayloadOverrides, 'action' | 'draft'> = {},
    private readonly firstPrId = FIRST_PR_ID,
  ) {
    const template = JSON.stringify(examplePayload({ authorId, prId: PR_ID_MARK, headSha: SHA_MARK, ...overrides }));
    this.parts = template.split(new RegExp(`(${PR_ID_MARK}|${SHA_MARK})`));
  }

  next(): { body: string; headers: Record<string, string> } {
    const n = this.sequence++;
    const values: Record<string, string> = { [PR_ID_MARK]: String(this.firstPrId + n), [SHA_MARK]: n.toString(16).padStart(40, '0') };
    const body = this.parts.map((part, index) => (index % 2 === 1 ? values[part]! : part)).join('');
    return {
      body,
      headers: {
        'content-type': 'application/json',
        'x-github-event': 'pull_request',
        'x-github-delivery': randomUUID(),
        'x-hub-signature-256': `sha256=${createHmac('sha256', this.secret).update(body).digest('hex')}`,
      },
    };
  }

  get sent() {
    return this.sequence;
  }

  /** The GitHub pull-request id of the n-th delivery (from 0). */
  prId(n: number) {
    return this.firstPrId + n;
  }
}
