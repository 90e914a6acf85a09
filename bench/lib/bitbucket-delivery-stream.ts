import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { FakeBitbucket } from '../../test/fakes/fake-bitbucket.js';

const ID_MARK = 987_654_321;
/** 12 hex digits, as Bitbucket's payloads name commits. */
const SHA_MARK = 'feedfacefeed';
const EVENTS = ['pullrequest:created', 'pullrequest:updated'] as const;
const fixture = (event: string) => new URL(`../../test/fixtures/bitbucket/pullrequest-${event}.json`, import.meta.url);

interface Hook {
  repository: { uuid: string; full_name: string };
  pullrequest: { id: number; draft: boolean; source: { commit: { hash: string } } };
}

/**
 * An endless supply of distinct, signed deliveries for one connected repository:
 * `pullrequest:created` and `pullrequest:updated` in turn, from Bitbucket's documented payloads
 * (test/fixtures/bitbucket) made ready for review (not drafts), each a new pull request and head
 * commit (an update of a pull request the service has not seen, as a repository connected after it
 * was opened sends, stores and starts a review as a creation does). Signed as Bitbucket signs
 * (`X-Hub-Signature: sha256=` + the HMAC-SHA256 of the raw body keyed by the hook's secret), with a
 * new `X-Request-UUID` each, so each one is stored. The JSON is spliced from a template, as
 * `DeliveryStream` does for GitHub's.
 */
export class BitbucketDeliveryStream {
  /** Per event, the template cut at the markers; odd entries are the markers themselves. */
  private readonly templates: string[][];
  private sequence = 0;

  constructor(
    private readonly secret: string,
    repository: { uuid: string; fullName: string },
    private readonly hookUuid: string,
  ) {
    this.templates = EVENTS.map((event) => {
      const hook = JSON.parse(readFileSync(fixture(event.slice('pullrequest:'.length)), 'utf8')) as Hook;
      const { id, source } = hook.pullrequest;
      const { uuid, full_name: fullName } = hook.repository;
      Object.assign(hook.pullrequest, { id: ID_MARK, draft: false });
      const text = JSON.stringify(hook)
        .replaceAll(uuid, repository.uuid)
        .replaceAll(fullName, repository.fullName)
        .replaceAll(source.commit.hash, SHA_MARK)
        // The pull request's links name it by its id (its page, its API, its diff's query).
        .replace(new RegExp(`(pull-?requests/|from_pullrequest_id=)${id}\\b`, 'g'), `$1${ID_MARK}`);
      return text.split(new RegExp(`(${ID_MARK}|${SHA_MARK})`));
    });
  }

  next(): { body: string; headers: Record<string, string> } {
    const n = this.sequence++;
    const values: Record<string, string> = { [ID_MARK]: String(n + 1), [SHA_MARK]: n.toString(16).padStart(12, '0') };
    const body = this.templates[n % EVENTS.length]!.map((part, index) => (index % 2 === 1 ? values[part]! : part)).join('');
    return { body, headers: FakeBitbucket.deliveryHeaders(EVENTS[n % EVENTS.length]!, body, { secret: this.secret, hookUuid: this.hookUuid }) };
  }

  get sent() {
    return this.sequence;
  }

  /** The service's delivery id for a request UUID on a connection (decisions.md §16: one record per connection). */
  static deliveryId(connectionId: string, requestUuid: string): string {
    return `bitbucket-${connectionId}-${createHash('sha256').update(requestUuid).digest('hex').slice(0, 64)}`;
  }
}
