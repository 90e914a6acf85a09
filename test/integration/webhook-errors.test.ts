import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../helpers/accounts.js';
import { githubEnv, signInWithGitHub } from '../helpers/github-login.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { examplePayload, signedDelivery, WEBHOOK_SECRET, type DeliveryOptions } from '../helpers/webhooks.js';
import { FakeGitHub } from '../fakes/fake-github.js';

describe('webhook: refused deliveries', () => {
  let github: FakeGitHub;
  let t: TestApp;
  let authorId: number;
  let authorCookie: string;
  beforeAll(async () => {
    github = await new FakeGitHub().start();
    t = await createTestApp({ env: { ...githubEnv(github), GITHUB_WEBHOOK_SECRET: WEBHOOK_SECRET }, role: 'api' });
    ({ githubId: authorId, cookie: authorCookie } = await signInWithGitHub(t.app, github));
  });
  afterAll(async () => {
    await t.close();
    await github.stop();
  });

  const prCount = async () => (await t.app.db.query.pullRequests.findMany()).length;
  const deliver = async (payload: unknown, options?: DeliveryOptions) => t.app.inject(await signedDelivery(payload, options));

  it('a bad signature is 401 and stores nothing', async () => {
    const before = await prCount();
    const payload = examplePayload({ authorId });
    const wrongSecret = await deliver(payload, { secret: 'not-the-secret' });
    expect(wrongSecret.statusCode).toBe(401);
    expect(wrongSecret.json()).toEqual({ statusCode: 401, error: 'Unauthorized', message: 'Invalid x-hub-signature-256' });
    // A valid signature over other bytes.
    const tampered = await t.app.inject({ ...(await signedDelivery(payload)), payload: JSON.stringify({ ...payload, action: 'closed' }) });
    expect(tampered.statusCode).toBe(401);
    expect((await deliver(payload, { headers: { 'x-hub-signature-256': 'sha256=zz' } })).statusCode).toBe(401);
    expect((await deliver(payload, { headers: { 'x-hub-signature-256': 'garbage' } })).statusCode).toBe(401);
    expect(await prCount()).toBe(before);
  });

  it('a missing signature is 401 when a secret is configured', async () => {
    const response = await deliver(examplePayload({ authorId }), { omit: ['x-hub-signature-256'] });
    expect(response.statusCode).toBe(401);
    expect(response.json<{ message: string }>().message).toBe('Missing x-hub-signature-256');
  });

  it('another event is 422, a missing event header too; ping is 200', async () => {
    const issues = await deliver({ action: 'opened', issue: {} }, { event: 'issues' });
    expect(issues.statusCode).toBe(422);
    expect(issues.json()).toMatchObject({ statusCode: 422, error: 'Unprocessable Entity' });
    expect((await deliver(examplePayload({ authorId }), { omit: ['x-github-event'] })).statusCode).toBe(422);
    expect((await deliver({ zen: 'hi' }, { event: 'ping' })).statusCode).toBe(200);
  });

  it('an unknown author is the documented 500, and nothing is stored', async () => {
    const before = await prCount();
    const response = await deliver(examplePayload({ authorId: 424242 }));
    expect(response.statusCode).toBe(500);
    expect(response.json()).toEqual({ statusCode: 500, error: 'Internal Server Error', message: 'Failed to process webhook payload' });
    expect(await prCount()).toBe(before);
  });

  it('malformed JSON is 400, a non-JSON body 415, an invalid payload 400 with the field', async () => {
    const broken = '{"action":"opened",';
    const malformed = await deliver(broken, { headers: { 'x-hub-signature-256': 'sha256=00' } });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json()).toMatchObject({ statusCode: 400, error: 'Bad Request' });

    const form = await t.app.inject({ method: 'POST', url: '/webhook', headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-github-event': 'pull_request' }, payload: 'payload=%7B%7D' });
    expect(form.statusCode).toBe(415);

    const payload = examplePayload({ authorId }) as unknown as { pull_request: Record<string, unknown> };
    delete payload.pull_request.id;
    const invalid = await deliver(payload);
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json<{ details: Array<{ path: string }> }>().details.map((detail) => detail.path)).toContain('body.pull_request.id');
  });

  it('a body over the 25 MB limit is 413', async () => {
    const payload = { ...examplePayload({ authorId }), padding: 'x'.repeat(26 * 1024 * 1024) };
    const response = await deliver(payload);
    expect(response.statusCode).toBe(413);
    expect(response.json()).toMatchObject({ statusCode: 413, error: 'Payload Too Large' });
  });

  it('a session may post its own pull requests unsigned, but not another user’s (403)', async () => {
    const own = examplePayload({ authorId });
    const unsigned = (cookie: string): DeliveryOptions => ({ omit: ['x-hub-signature-256'], headers: { cookie } });
    const ownResponse = await deliver(own, unsigned(authorCookie));
    expect(ownResponse.statusCode).toBe(200);

    const victim = await signInWithGitHub(t.app, github);
    const planted = await deliver(examplePayload({ authorId: victim.githubId }), unsigned(authorCookie));
    expect(planted.statusCode).toBe(403);

    // An email account without GitHub has no pull requests of its own to post.
    const emailOnly = await createAccount(t.app, t.outbox);
    const unlinked = await deliver(examplePayload({ authorId }), unsigned(emailOnly.cookie));
    expect(unlinked.statusCode).toBe(403);
  });
});

describe('webhook: no secret configured (development)', () => {
  it('accepts unsigned deliveries', async () => {
    const github = await new FakeGitHub().start();
    const t = await createTestApp({ env: githubEnv(github), role: 'api' });
    try {
      const author = await signInWithGitHub(t.app, github);
      expect((await t.app.inject(await signedDelivery(examplePayload({ authorId: author.githubId }), { omit: ['x-hub-signature-256'] }))).statusCode).toBe(200);
      expect(t.logs.join('')).toContain('GITHUB_WEBHOOK_SECRET is not set');
    } finally {
      await t.close();
      await github.stop();
    }
  });
});
