import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { describe, expect, it } from 'vitest';
import { hubSignature, matchHubSignature, newHookSecret, verifyHubSignature } from '../../src/code-hosts/bitbucket/bitbucket-signature.js';
import { BITBUCKET_EVENTS, bitbucketDeliveryHeadersSchema, commentHookSchema, hookSchemaOf, isBitbucketEventKey, pullRequestHookSchema } from '../../src/code-hosts/bitbucket/bitbucket-webhook-schemas.js';
import { FakeBitbucket } from '../fakes/fake-bitbucket.js';
import { closeServer, listenOnLoopback } from '../helpers/net.js';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/bitbucket/${name}.json`, import.meta.url), 'utf8');
const SECRET = 'k'.repeat(48);

describe('X-Hub-Signature', () => {
  const body = fixture('pullrequest-created');

  it('accepts sha256= and the HMAC-SHA256 of the raw body keyed by the secret', () => {
    expect(verifyHubSignature(body, hubSignature(body, SECRET), SECRET)).toBe(true);
    expect(verifyHubSignature(Buffer.from(body), hubSignature(body, SECRET), SECRET)).toBe(true);
    // Hex case is the encoder's choice, not the signature's.
    expect(verifyHubSignature(body, `sha256=${hubSignature(body, SECRET).slice('sha256='.length).toUpperCase()}`, SECRET)).toBe(true);
    expect(verifyHubSignature(body, hubSignature(body, SECRET).replace('sha256=', 'SHA256='), SECRET)).toBe(false);
  });

  it('refuses a missing, malformed, truncated or wrong signature, another secret, and a changed body', () => {
    const good = hubSignature(body, SECRET);
    expect(verifyHubSignature(body, undefined, SECRET)).toBe(false);
    expect(verifyHubSignature(body, '', SECRET)).toBe(false);
    expect(verifyHubSignature(body, good.slice('sha256='.length), SECRET)).toBe(false);
    expect(verifyHubSignature(body, good.replace('sha256=', 'sha1='), SECRET)).toBe(false);
    expect(verifyHubSignature(body, good.slice(0, -2), SECRET)).toBe(false);
    expect(verifyHubSignature(body, `${good}00`, SECRET)).toBe(false);
    expect(verifyHubSignature(body, `sha256=${'z'.repeat(64)}`, SECRET)).toBe(false);
    expect(verifyHubSignature(body, hubSignature(body, 'another secret'), SECRET)).toBe(false);
    expect(verifyHubSignature(`${body} `, good, SECRET)).toBe(false);
    expect(verifyHubSignature(body, hubSignature(body, ''), '')).toBe(false);
  });

  it('finds the connection whose secret signed it among those of the repository', () => {
    const candidates = [{ id: 'a', secret: 'a'.repeat(40) }, { id: 'b', secret: SECRET }];
    expect(matchHubSignature(body, hubSignature(body, SECRET), candidates)?.id).toBe('b');
    expect(matchHubSignature(body, hubSignature(body, 'c'.repeat(40)), candidates)).toBeUndefined();
    expect(matchHubSignature(body, undefined, candidates)).toBeUndefined();
  });

  it('makes hook secrets of 32 to 128 characters, each new', () => {
    const secret = newHookSecret();
    expect(secret.length).toBeGreaterThanOrEqual(32);
    expect(secret.length).toBeLessThanOrEqual(128);
    expect(newHookSecret()).not.toBe(secret);
  });

  it("verifies what the fake sends, as Bitbucket sends it (headers and the signature of the raw body)", async () => {
    let received: { headers: IncomingHttpHeaders; body: string } | undefined;
    const receiver = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        received = { headers: request.headers, body: Buffer.concat(chunks).toString() };
        response.writeHead(200).end();
      });
    });
    const url = await listenOnLoopback(receiver);
    try {
      const { requestUuid } = await FakeBitbucket.deliver(url, BITBUCKET_EVENTS.created, undefined, { secret: SECRET, rawBody: body, attempt: 2 });
      const headers = bitbucketDeliveryHeadersSchema.parse(received!.headers);
      expect(headers).toMatchObject({ 'x-event-key': 'pullrequest:created', 'x-request-uuid': requestUuid, 'x-attempt-number': 2 });
      expect(verifyHubSignature(received!.body, headers['x-hub-signature'], SECRET)).toBe(true);
    } finally {
      await closeServer(receiver);
    }
  });
});

describe("Bitbucket's webhook payloads", () => {
  it('parse from the documented examples: 12-character hashes, repository.uuid, draft, the web page', () => {
    const created = pullRequestHookSchema.parse(JSON.parse(fixture('pullrequest-created')));
    expect(created).toMatchObject({
      repository: { uuid: '{6a4b1b8e-3c2f-4d8a-9f0e-2b7c5d1e9a40}', full_name: 'acme-team/widgets' },
      pullrequest: { id: 42, draft: true, state: 'OPEN', source: { commit: { hash: 'ed0e0bfd9a94' } }, destination: { commit: { hash: '49cb0fd6590a' }, branch: { name: 'main' } }, links: { html: { href: 'https://bitbucket.org/acme-team/widgets/pull-requests/42' } } },
      actor: { uuid: '{18aaf105-e666-439e-b95a-85c00651a267}' },
    });
    expect(pullRequestHookSchema.parse(JSON.parse(fixture('pullrequest-updated'))).pullrequest).toMatchObject({ draft: false, source: { commit: { hash: 'a13a36d2655a' } } });
    expect(pullRequestHookSchema.parse(JSON.parse(fixture('pullrequest-fulfilled'))).pullrequest.state).toBe('MERGED');
    expect(pullRequestHookSchema.parse(JSON.parse(fixture('pullrequest-rejected'))).pullrequest.state).toBe('DECLINED');
    const comment = commentHookSchema.parse(JSON.parse(fixture('pullrequest-comment-created')));
    expect(comment.comment).toMatchObject({ id: 512003, parent: { id: 512001 }, inline: { path: 'src/a.ts', to: 3 }, content: { raw: expect.stringMatching(/^\/wrong/) } });
  });

  it('accepts only the five subscribed events; a comment event needs its comment', () => {
    expect(Object.values(BITBUCKET_EVENTS).every(isBitbucketEventKey)).toBe(true);
    expect(isBitbucketEventKey('pullrequest:approved')).toBe(false);
    expect(isBitbucketEventKey('repo:push')).toBe(false);
    expect(hookSchemaOf(BITBUCKET_EVENTS.commentCreated).safeParse(JSON.parse(fixture('pullrequest-created'))).success).toBe(false);
    expect(hookSchemaOf(BITBUCKET_EVENTS.updated).safeParse(JSON.parse(fixture('pullrequest-comment-created'))).success).toBe(true);
  });

  it('refuses a payload without a repository uuid or with a malformed hash', () => {
    const payload = JSON.parse(fixture('pullrequest-created')) as { repository: { uuid?: string }; pullrequest: { source: { commit: { hash: string } } } };
    payload.pullrequest.source.commit.hash = 'not-a-hash';
    expect(pullRequestHookSchema.safeParse(payload).success).toBe(false);
    delete payload.repository.uuid;
    expect(pullRequestHookSchema.safeParse(payload).success).toBe(false);
  });
});
