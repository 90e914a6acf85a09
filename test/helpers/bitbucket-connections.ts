import { createHmac, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { bitbucketUser, FakeBitbucket, type FakeBitbucketUser, type FakeHook, type FakeRepository } from '../fakes/fake-bitbucket.js';
import { createAccount, type Account } from './accounts.js';
import { callAs, type Method } from './orgs.js';
import { createTestApp } from './test-app.js';

export const PUBLIC_URL = 'https://review.example.test';
/** The events decisions.md §16 subscribes to, and nothing else. */
export const HOOK_EVENTS = ['pullrequest:created', 'pullrequest:updated', 'pullrequest:fulfilled', 'pullrequest:rejected', 'pullrequest:comment_created'];

export interface Connection {
  id: string;
  workspace: string;
  repoSlug: string;
  repository: { uuid: string; fullName: string; htmlUrl: string };
  hookUuid: string;
  commands: boolean;
  orgId: string | null;
  createdAt: string;
}

/** A repository of the fake Bitbucket with an admin, ready to be connected. */
export interface Repo {
  fullName: string;
  workspace: string;
  repoSlug: string;
  fake: FakeRepository;
  admin: FakeBitbucketUser;
}

/** The credentials a connection is made with: an access token (Bearer), or with `email` an Atlassian API token (Basic). */
export interface Credentials {
  token: string;
  email?: string;
}

/** A signed delivery's options: a secret signs the body; `signature` sends that header as is. */
export interface DeliveryOptions {
  secret?: string;
  signature?: string;
  requestUuid?: string;
  attempt?: number;
}

let counter = 0;

/**
 * The Bitbucket suites' world: the API (no workers, so a started review stays queued where a test
 * sees it) with `BITBUCKET_API_URL` on the fake Bitbucket Cloud. It remembers every token and hook
 * secret it hands out and every response body, so a suite can check none ever comes back.
 */
export async function bitbucketWorld() {
  const bitbucket = await new FakeBitbucket().start();
  const t = await createTestApp({ role: 'api', env: { PUBLIC_URL, BITBUCKET_API_URL: bitbucket.apiUrl } });
  const secrets = new Set<string>();
  const responses: string[] = [];

  const call = async (account: Account | undefined, method: Method, url: string, payload?: object): Promise<LightMyRequestResponse> => {
    const response = await callAs(t.app, account?.cookie, method, url, payload);
    responses.push(response.body);
    return response;
  };

  /** A repository of its own, with an admin account on it. */
  const repository = (label = 'team'): Repo => {
    counter++;
    const workspace = `${label}-${counter}-${Math.random().toString(36).slice(2, 8)}`;
    const fullName = `${workspace}/widgets`;
    const fake = bitbucket.addRepository(fullName);
    const admin = bitbucketUser(`Admin ${counter}`);
    bitbucket.setPermission(fullName, admin, 'admin');
    return { fullName, workspace, repoSlug: 'widgets', fake, admin };
  };

  /** A repository access token (Bearer): the service writes as the token, and may not read permissions. */
  const accessToken = (repo: Repo, scopes?: string[]): Credentials => {
    const { token } = bitbucket.issueAccessToken(repo.fullName, scopes === undefined ? {} : { scopes });
    secrets.add(token);
    return { token };
  };

  /** An Atlassian API token of `user` (the repository's admin unless said), sent as Basic `email:token`. */
  const apiToken = (repo: Repo, user: FakeBitbucketUser = repo.admin, scopes?: string[]): Credentials & { email: string } => {
    const credentials = bitbucket.issueApiToken(user, `${user.nickname}-${counter}@example.com`, scopes === undefined ? {} : { scopes });
    secrets.add(credentials.token);
    return credentials;
  };

  /** `POST /bitbucket/connections` for `repo` as `account`; `body` overrides any field. */
  const connect = (account: Account, repo: Repo, credentials: Credentials, body: object = {}) =>
    call(account, 'POST', '/bitbucket/connections', { workspace: repo.workspace, repoSlug: repo.repoSlug, ...credentials, ...body });

  /** The webhook the service created for a connection, as the fake keeps it (its secret too). */
  const hookOf = (repo: Repo, hookUuid: string): FakeHook => {
    const hook = repo.fake.hooks.find((candidate) => candidate.uuid === hookUuid);
    if (hook === undefined) throw new Error(`no webhook ${hookUuid} on ${repo.fullName}`);
    if (hook.secret !== null) secrets.add(hook.secret);
    return hook;
  };

  /** A repository of its own connected by `account` (a new one unless given): the 201's body and the secret Bitbucket would sign deliveries with. */
  const connected = async (options: { account?: Account; repo?: Repo; kind?: 'access-token' | 'api-token'; orgId?: string } = {}) => {
    const account = options.account ?? (await createAccount(t.app, t.outbox));
    const repo = options.repo ?? repository();
    const credentials = options.kind === 'api-token' ? apiToken(repo) : accessToken(repo);
    const response = await connect(account, repo, credentials, options.orgId === undefined ? {} : { orgId: options.orgId });
    expect(response.statusCode, response.body).toBe(201);
    const connection = response.json<Connection>();
    return { account, repo, credentials, connection, secret: hookOf(repo, connection.hookUuid).secret! };
  };

  /** Bitbucket's delivery of `payload` to `POST /webhook/bitbucket` (facts §1's headers), signed when asked. */
  const deliver = async (eventKey: string, payload: unknown, options: DeliveryOptions = {}): Promise<LightMyRequestResponse> => {
    const raw = JSON.stringify(payload);
    const signature = options.signature ?? (options.secret === undefined ? undefined : signBody(raw, options.secret));
    const response = await t.app.inject({
      method: 'POST',
      url: '/webhook/bitbucket',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'Bitbucket-Webhooks/2.0',
        'x-event-key': eventKey,
        'x-request-uuid': options.requestUuid ?? randomUUID(),
        'x-attempt-number': String(options.attempt ?? 1),
        'x-hook-uuid': randomUUID(),
        ...(signature === undefined ? {} : { 'x-hub-signature': signature }),
      },
      payload: raw,
    });
    responses.push(response.body);
    return response;
  };

  /** No token or hook secret in any response body or log line so far. */
  const expectNothingLeaked = () => {
    const everything = responses.join('\n');
    const logs = t.logs.join('');
    for (const secret of secrets) {
      expect(everything, 'a response carries a token or secret').not.toContain(secret);
      expect(logs, 'a log line carries a token or secret').not.toContain(secret);
    }
  };

  return {
    t,
    bitbucket,
    secrets,
    call,
    repository,
    accessToken,
    apiToken,
    connect,
    hookOf,
    connected,
    deliver,
    expectNothingLeaked,
    close: async () => {
      await t.close();
      await bitbucket.stop();
    },
  };
}

export type BitbucketWorld = Awaited<ReturnType<typeof bitbucketWorld>>;

/** `X-Hub-Signature` as Bitbucket computes it: `sha256=` and the HMAC-SHA256 of the raw body keyed by the hook's secret (facts §1). */
export const signBody = (raw: string, secret: string) => `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;

/** The fixtures' repository (`acme-team/widgets`), replaced by the connected one. */
const FIXTURE_REPOSITORY = { uuid: '{6a4b1b8e-3c2f-4d8a-9f0e-2b7c5d1e9a40}', fullName: 'acme-team/widgets' };

export interface HookPayload {
  repository: { uuid: string; full_name: string; links: { html: { href: string } } };
  pullrequest: Record<string, unknown> & { id: number; draft?: boolean; state: string; links: { html: { href: string } }; source: { commit: { hash: string } } };
  comment?: Record<string, unknown>;
}

/**
 * One of the documented payloads in test/fixtures/bitbucket/, about `repo` instead of
 * `acme-team/widgets` (its uuid and name everywhere, links included), with `pullRequest` merged into
 * its `pullrequest` (another `id` moves its web page too).
 */
export function bitbucketFixture(name: string, repo: { fullName: string; fake: { uuid: string } }, pullRequest: Partial<HookPayload['pullrequest']> = {}): HookPayload {
  const text = readFileSync(new URL(`../fixtures/bitbucket/${name}`, import.meta.url), 'utf8')
    .replaceAll(FIXTURE_REPOSITORY.uuid, repo.fake.uuid)
    .replaceAll(FIXTURE_REPOSITORY.fullName, repo.fullName);
  const payload = JSON.parse(text) as HookPayload;
  const { links } = payload.pullrequest;
  payload.pullrequest = { ...payload.pullrequest, ...pullRequest };
  // Another pull request of the repository has its own page.
  if (pullRequest.id !== undefined && pullRequest.links === undefined) payload.pullrequest.links = { ...links, html: { href: links.html.href.replace(/\/\d+$/, `/${pullRequest.id}`) } };
  return payload;
}
