import { readFileSync } from 'node:fs';
import { and, eq } from 'drizzle-orm';
import { expect } from 'vitest';
import type { QueueName } from '../../src/adapters/queue/job-queue.js';
import { pullRequests } from '../../src/db/schema/index.js';
import { bitbucketUser, FakeBitbucket, type FakeBitbucketUser, type FakeComment } from '../fakes/fake-bitbucket.js';
import type { ChatRequest, ScriptedReply } from '../fakes/fake-openai-chat.js';
import { createAccount, type Account } from './accounts.js';
import { reviewAnswer, settledReview, type ReviewInformation, type ScriptedFinding } from './review-fixtures.js';
import { reviewWorld, type ReviewWorld } from './review-world.js';

export const PUBLIC_URL = 'https://review.example.test';

/** The fixtures of test/fixtures/bitbucket/, by the event they show. */
export const BITBUCKET_EVENTS = {
  created: 'pullrequest:created',
  updated: 'pullrequest:updated',
  fulfilled: 'pullrequest:fulfilled',
  rejected: 'pullrequest:rejected',
  'comment-created': 'pullrequest:comment_created',
} as const;
export type BitbucketFixture = keyof typeof BITBUCKET_EVENTS;

export type Information = ReviewInformation & { prId: string; provider: string; url: string; publication: { state: string; reason: string | null; summaryCommentUrl: string | null } };

/** A repository on the fake Bitbucket connected by the world's owner. */
export interface ConnectedRepository {
  fullName: string;
  uuid: string;
  connectionId: string;
  /** The secret the service gave its webhook: deliveries are signed with it. */
  secret: string;
  hookUuid: string;
  /** The account the connection's token writes as. */
  account: FakeBitbucketUser;
  commands: boolean;
}

/** The model's answer: the review with these findings, and a plain answer to anything else (a chat, an `/ask`). */
export const reviewer = (findings: ScriptedFinding[]) => (request: ChatRequest): ScriptedReply =>
  JSON.stringify(request.body.messages).includes('Answer with one JSON object') ? { text: reviewAnswer(findings) } : { text: 'An answer.' };

/**
 * A diff as Bitbucket serves it (git's, with `diff --git` headers), one file per entry: `lines` are
 * the hunk's lines (`+`, `-`, ` `); a file without `oldStart` is new.
 */
export function gitDiff(files: Array<{ path: string; hunk: string; lines: string[]; created?: boolean }>): string {
  return `${files
    .map(({ path, hunk, lines, created }) =>
      [`diff --git a/${path} b/${path}`, ...(created ? ['new file mode 100644', 'index 0000000..1111111', '--- /dev/null'] : ['index 1111111..2222222 100644', `--- a/${path}`]), `+++ b/${path}`, hunk, ...lines].join('\n'),
    )
    .join('\n')}\n`;
}

/**
 * The whole service beside a fake Bitbucket Cloud: the owner's account, repositories connected
 * through `POST /bitbucket/connections`, and deliveries built from the recorded fixtures, retargeted
 * at the fake's state and signed with the secret the service gave the webhook.
 */
export class BitbucketWorld {
  readonly admin = bitbucketUser('Ada Admin');
  readonly writer = bitbucketUser('Wes Writer');
  readonly reader = bitbucketUser('Rita Reader');

  private constructor(
    readonly world: ReviewWorld,
    readonly bitbucket: FakeBitbucket,
    readonly owner: Account,
  ) {}

  static async start(): Promise<BitbucketWorld> {
    const bitbucket = await new FakeBitbucket().start();
    const world = await reviewWorld({ PUBLIC_URL, BITBUCKET_API_URL: bitbucket.apiUrl });
    return new BitbucketWorld(world, bitbucket, await createAccount(world.t.app, world.t.outbox));
  }

  get app() {
    return this.world.t.app;
  }

  async close(): Promise<void> {
    await this.world.close();
    await this.bitbucket.stop();
  }

  /**
   * Connects a new repository: with the admin's API token (commands available), or with a repository
   * access token (`commands: false`, facts §5).
   */
  async connect(fullName: string, token: 'api-token' | 'access-token' = 'api-token'): Promise<ConnectedRepository> {
    const { bitbucket } = this;
    const repository = bitbucket.addRepository(fullName);
    bitbucket.setPermission(fullName, this.admin, 'admin');
    bitbucket.setPermission(fullName, this.writer, 'write');
    bitbucket.setPermission(fullName, this.reader, 'read');
    const [workspace, repoSlug] = fullName.split('/') as [string, string];
    let account = this.admin;
    let credentials: { token: string; email?: string };
    if (token === 'api-token') {
      credentials = bitbucket.issueApiToken(this.admin, `ada-${workspace}-${repoSlug}@example.com`);
    } else {
      const issued = bitbucket.issueAccessToken(fullName);
      account = issued.user;
      credentials = { token: issued.token };
    }
    const response = await this.app.inject({ method: 'POST', url: '/bitbucket/connections', headers: { cookie: this.owner.cookie }, payload: { workspace, repoSlug, ...credentials } });
    expect(response.statusCode, response.body).toBe(201);
    const connected = response.json<{ id: string; hookUuid: string; commands: boolean; repository: { uuid: string } }>();
    const hook = repository.hooks.at(-1)!;
    expect(connected.repository.uuid).toBe(repository.uuid);
    return { fullName, uuid: repository.uuid, connectionId: connected.id, secret: hook.secret!, hookUuid: hook.uuid, account, commands: connected.commands };
  }

  /** The fixture of `event`, retargeted at the fake's repository and pull request as they are now, by `actor`. */
  payload(repository: ConnectedRepository, event: BitbucketFixture, number: number, actor: FakeBitbucketUser, comment?: FakeComment): Record<string, unknown> {
    const fixture = JSON.parse(readFileSync(new URL(`../fixtures/bitbucket/pullrequest-${event}.json`, import.meta.url), 'utf8')) as Record<string, Record<string, unknown>>;
    const current = this.bitbucket.eventPayload(repository.fullName, number, actor, comment) as Record<string, Record<string, unknown>>;
    const payload: Record<string, unknown> = {
      ...fixture,
      actor: current.actor,
      repository: { ...fixture.repository, ...current.repository },
      pullrequest: { ...fixture.pullrequest, ...current.pullrequest, rendered: undefined },
    };
    if (comment !== undefined) {
      // A top-level comment has no `parent` and a general one no `inline`: the fixture's reply must not leak through.
      const { parent: _parent, inline: _inline, ...fixtureComment } = fixture.comment!;
      payload.comment = { ...fixtureComment, ...current.comment };
    }
    return payload;
  }

  /** Posts one signed delivery as Bitbucket does; pass the first one's `requestUuid` (and a higher `attempt`) for its retry. */
  async deliver(repository: ConnectedRepository, event: BitbucketFixture, payload: unknown, options: { requestUuid?: string; attempt?: number; secret?: string } = {}) {
    const raw = JSON.stringify(payload);
    const headers = FakeBitbucket.deliveryHeaders(BITBUCKET_EVENTS[event], raw, { secret: options.secret ?? repository.secret, hookUuid: repository.hookUuid.replace(/[{}]/g, ''), ...options });
    const response = await this.app.inject({ method: 'POST', url: '/webhook/bitbucket', headers, payload: raw });
    return { statusCode: response.statusCode, body: response.body, requestUuid: headers['x-request-uuid']! };
  }

  /** Delivers `event` for the pull request as the fake holds it now, and expects the 200. */
  async send(repository: ConnectedRepository, event: BitbucketFixture, number: number, actor: FakeBitbucketUser = this.writer, comment?: FakeComment) {
    const delivered = await this.deliver(repository, event, this.payload(repository, event, number, actor, comment));
    expect(delivered.statusCode, delivered.body).toBe(200);
    return delivered;
  }

  /** The service's record of a Bitbucket pull request. */
  async record(repository: ConnectedRepository, number: number) {
    const [row] = await this.app.db.select().from(pullRequests).where(and(eq(pullRequests.repositoryId, repository.uuid), eq(pullRequests.prNumber, number)));
    return row;
  }

  /** The record's id once the delivery that created it was stored. */
  async prIdOf(repository: ConnectedRepository, number: number): Promise<string> {
    await expect.poll(() => this.record(repository, number), { timeout: 10_000, interval: 50 }).toBeDefined();
    return (await this.record(repository, number))!.id;
  }

  /** The review once it settled and `until` holds. */
  settled(prId: string, until: (review: Information) => boolean = () => true): Promise<Information> {
    return settledReview(this.app, this.owner.cookie, prId, { until: (review) => until(review as Information) }) as Promise<Information>;
  }

  /** Waits until these queues hold nothing waiting or running. */
  async idle(...queues: QueueName[]): Promise<void> {
    await expect
      .poll(
        async () => {
          let busy = 0;
          for (const queue of queues) {
            const counts = await this.app.queue.counts(queue);
            busy += counts.waiting + counts.active;
          }
          return busy;
        },
        { timeout: 20_000, interval: 50 },
      )
      .toBe(0);
  }

  /** The `POST .../statuses/build` bodies sent for a commit (Bitbucket keeps only the last per key). */
  statusPosts(repository: ConnectedRepository, hash: string): Array<{ key: string; state: string; name: string; url: string; description?: string }> {
    const prefix = `/repositories/${repository.fullName}/commit/`;
    return this.bitbucket.requests
      .filter((request) => request.method === 'POST' && request.path.startsWith(prefix) && request.path.endsWith('/statuses/build') && hash.startsWith(request.path.slice(prefix.length).split('/')[0]!))
      .map((request) => request.body as { key: string; state: string; name: string; url: string; description?: string });
  }
}

/** HTML Bitbucket would show as text (facts §1): no body the service writes holds any. */
export const HTML = /<!--|<\/?(?:details|summary|br|p|div|span|b|i|em|strong|sub|sup|a|img|table|tr|td|code|pre)\b[^>]*>/i;
