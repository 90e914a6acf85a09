import { eq } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { gitlabConnections } from '../../src/code-hosts/gitlab/gitlab-tables.js';
import { createAccount, type Account } from '../helpers/accounts.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { ACCESS, FakeGitLab, type FakeGitLabUser } from '../fakes/fake-gitlab.js';

const PUBLIC_URL = 'https://review.example.test';

describe('/gitlab/connections', () => {
  let gitlab: FakeGitLab;
  let t: TestApp;
  /** Every token the suite hands the service: none may come back in a response or a log line. */
  const secrets = new Set<string>();
  let responses: string[] = [];
  let maintainer: FakeGitLabUser;
  let projectId: number;
  let counter = 0;

  beforeAll(async () => {
    gitlab = await new FakeGitLab().start();
    t = await createTestApp({ role: 'api', env: { PUBLIC_URL } });
  });
  afterAll(async () => {
    await t.close();
    await gitlab.stop();
  });
  beforeEach(() => {
    responses = [];
    // A project of its own for every test, with a Maintainer and a Developer.
    counter++;
    maintainer = { id: 500 + counter, username: `maintainer${counter}`, name: 'Maintainer' };
    projectId = gitlab.addProject(`team-${counter}/sub/service`).id;
    gitlab.addMember(projectId, maintainer, ACCESS.maintainer);
  });
  afterEach(() => {
    const everything = responses.join('\n');
    const logs = t.logs.join('');
    for (const secret of secrets) {
      expect(everything, 'a response carries a token or secret').not.toContain(secret);
      expect(logs, 'a log line carries a token or secret').not.toContain(secret);
    }
  });

  const token = (user = maintainer, scopes?: string[]) => {
    const value = gitlab.issueToken(user, scopes);
    secrets.add(value);
    return value;
  };
  const call = async (account: Account, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object): Promise<LightMyRequestResponse> => {
    const response = await t.app.inject({ method, url, headers: { cookie: account.cookie }, payload });
    responses.push(response.body);
    return response;
  };
  const connect = (account: Account, body: object = {}) => call(account, 'POST', '/gitlab/connections', { baseUrl: gitlab.url, project: gitlab.project(projectId).path, token: token(), ...body });
  const hooks = () => gitlab.project(projectId).hooks;

  describe('happy path', () => {
    it('connects a project by path: checks the token, creates the webhook with a generated secret, answers 201', async () => {
      const account = await createAccount(t.app, t.outbox);
      const response = await connect(account);
      expect(response.statusCode, response.body).toBe(201);
      const body = response.json<{ id: string; baseUrl: string; project: object; hookId: number; createdAt: string }>();
      expect(body).toEqual({
        id: expect.any(String),
        baseUrl: gitlab.url,
        project: { id: projectId, pathWithNamespace: gitlab.project(projectId).path, webUrl: `${gitlab.url}/${gitlab.project(projectId).path}` },
        hookId: expect.any(Number),
        orgId: null,
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      });
      expect(hooks()).toEqual([
        expect.objectContaining({ id: body.hookId, url: `${PUBLIC_URL}/webhook/gitlab`, merge_requests_events: true, note_events: true, push_events: false, enable_ssl_verification: true }),
      ]);
      const secret = hooks()[0]!.token!;
      secrets.add(secret);
      expect(secret).toMatch(/^[0-9a-f]{64}$/);

      const list = await call(account, 'GET', '/gitlab/connections');
      expect(list.statusCode).toBe(200);
      expect(list.json()).toEqual([{ ...body, status: 'active', reason: null }]);
    });

    it('connects by numeric id, with a trailing slash on the base URL; a second user connects the same project for themselves', async () => {
      const first = await createAccount(t.app, t.outbox);
      const second = await createAccount(t.app, t.outbox);
      const one = await connect(first, { project: projectId, baseUrl: `${gitlab.url}/` });
      expect(one.statusCode, one.body).toBe(201);
      expect(one.json()).toMatchObject({ baseUrl: gitlab.url, project: { id: projectId } });
      const two = await connect(second, { project: String(projectId) });
      expect(two.statusCode, two.body).toBe(201);
      expect(two.json<{ id: string }>().id).not.toBe(one.json<{ id: string }>().id);
      expect(hooks()).toHaveLength(2);
    });

    it('disconnects: the webhook is removed, the connection gone (204)', async () => {
      const account = await createAccount(t.app, t.outbox);
      const { id } = (await connect(account)).json<{ id: string }>();
      const response = await call(account, 'DELETE', `/gitlab/connections/${id}`);
      expect(response.statusCode).toBe(204);
      expect(response.body).toBe('');
      expect(hooks()).toEqual([]);
      expect((await call(account, 'GET', '/gitlab/connections')).json()).toEqual([]);
    });

    it('disconnecting still succeeds when GitLab refuses to remove the webhook (revoked token)', async () => {
      const account = await createAccount(t.app, t.outbox);
      const value = token();
      const { id } = (await connect(account, { token: value })).json<{ id: string }>();
      gitlab.revokeToken(value);
      expect((await call(account, 'DELETE', `/gitlab/connections/${id}`)).statusCode).toBe(204);
      expect((await call(account, 'GET', '/gitlab/connections')).json()).toEqual([]);
      expect(t.logs.join('')).toContain('the GitLab webhook could not be removed');
    });

    it('lists a connection GitLab refused later as broken, with the reason', async () => {
      const account = await createAccount(t.app, t.outbox);
      const { id } = (await connect(account)).json<{ id: string }>();
      await t.app.services.gitlab.markBroken(id, '401 Unauthorized');
      expect((await call(account, 'GET', '/gitlab/connections')).json()).toEqual([expect.objectContaining({ id, status: 'broken', reason: '401 Unauthorized' })]);
    });
  });

  describe('errors', () => {
    it("answers 400 with GitLab's reason for a refused token, an unknown project and a token that cannot create hooks", async () => {
      const account = await createAccount(t.app, t.outbox);
      const unknown = await connect(account, { token: 'glpat-not-a-real-token' });
      expect(unknown.statusCode).toBe(400);
      expect(unknown.json()).toEqual({ statusCode: 400, error: 'Bad Request', message: expect.stringContaining('401 Unauthorized') });

      const missing = await connect(account, { project: 'nobody/nothing' });
      expect(missing.statusCode).toBe(400);
      expect(missing.json<{ message: string }>().message).toContain('404 Project Not Found');

      const developer = { id: 900 + counter, username: `dev${counter}`, name: 'Dev' };
      gitlab.addMember(projectId, developer, ACCESS.developer);
      const notMaintainer = await connect(account, { token: token(developer) });
      expect(notMaintainer.statusCode).toBe(400);
      expect(notMaintainer.json<{ message: string }>().message).toMatch(/webhook.*403 Forbidden/);

      const readOnly = await connect(account, { token: token(maintainer, ['read_api']) });
      expect(readOnly.statusCode).toBe(400);
      expect(readOnly.json<{ message: string }>().message).toContain('higher privileges');
      expect(hooks()).toEqual([]);
      expect((await call(account, 'GET', '/gitlab/connections')).json()).toEqual([]);
    });

    it('answers 409 when the caller already connected the project, and creates no second webhook', async () => {
      const account = await createAccount(t.app, t.outbox);
      expect((await connect(account)).statusCode).toBe(201);
      const again = await connect(account, { project: projectId });
      expect(again.statusCode).toBe(409);
      expect(again.json()).toMatchObject({ statusCode: 409, error: 'Conflict' });
      expect(hooks()).toHaveLength(1);
    });

    it('answers 400 with details for invalid input', async () => {
      const account = await createAccount(t.app, t.outbox);
      const before = gitlab.requests.length;
      for (const body of [
        { project: 'x/y' },
        { token: 'glpat-x' },
        { project: 'not a path', token: 'glpat-x' },
        { project: -3, token: 'glpat-x' },
        { project: 'a/b', token: 'has space' },
        { project: 'a/b', token: 'glpat-x', baseUrl: 'ftp://gitlab.example' },
        { project: 'a/b', token: 'glpat-x', baseUrl: 'https://user:pw@gitlab.example' },
        { project: 'a/b', token: 'glpat-x', baseUrl: 'not a url' },
        { project: 'a/b', token: 'glpat-x', baseUrl: 'x'.repeat(5_000) },
      ]) {
        const response = await call(account, 'POST', '/gitlab/connections', body);
        expect(response.statusCode, JSON.stringify(body)).toBe(400);
        expect(response.json<{ details: unknown[] }>().details.length).toBeGreaterThan(0);
      }
      expect(gitlab.requests.length).toBe(before);
    });

    it('answers 400 for a base URL that cannot be reached, and 503 while GitLab rate-limits', async () => {
      const account = await createAccount(t.app, t.outbox);
      const unreachable = await connect(account, { baseUrl: 'http://127.0.0.1:1' });
      expect(unreachable.statusCode).toBe(400);
      expect(unreachable.json<{ message: string }>().message).toContain('could not be reached');
      gitlab.fail(/^GET \/api\/v4\/projects\//, 429, { headers: { 'retry-after': '30' } });
      const limited = await connect(account);
      expect(limited.statusCode).toBe(503);
      expect(limited.json<{ message: string }>().message).toContain('30 s');
    });

    it('answers 401 without a session and 404 for an unknown connection', async () => {
      expect((await t.app.inject({ method: 'GET', url: '/gitlab/connections' })).statusCode).toBe(401);
      expect((await t.app.inject({ method: 'POST', url: '/gitlab/connections', payload: { project: 'a/b', token: 'x' } })).statusCode).toBe(401);
      const account = await createAccount(t.app, t.outbox);
      expect((await call(account, 'DELETE', '/gitlab/connections/6d1f2a7e-0000-4000-8000-000000000000')).statusCode).toBe(404);
      expect((await call(account, 'DELETE', '/gitlab/connections/not-an-id')).statusCode).toBe(404);
    });
  });

  describe('security', () => {
    it("another user's connection is a 404 and stays connected; lists are the caller's own", async () => {
      const owner = await createAccount(t.app, t.outbox);
      const other = await createAccount(t.app, t.outbox);
      const { id } = (await connect(owner)).json<{ id: string }>();
      expect((await call(other, 'DELETE', `/gitlab/connections/${id}`)).statusCode).toBe(404);
      expect((await call(other, 'GET', '/gitlab/connections')).json()).toEqual([]);
      expect((await call(owner, 'GET', '/gitlab/connections')).json()).toEqual([expect.objectContaining({ id })]);
      expect(hooks()).toHaveLength(1);
    });

    it('keeps the token and the webhook secret encrypted in the database', async () => {
      const account = await createAccount(t.app, t.outbox);
      const value = token();
      const { id } = (await connect(account, { token: value })).json<{ id: string }>();
      const [row] = await t.app.db.select().from(gitlabConnections).where(eq(gitlabConnections.id, id));
      const secret = hooks()[0]!.token!;
      secrets.add(secret);
      expect(row!.token).toMatch(/^v1\./);
      expect(row!.webhookSecret).toMatch(/^v1\./);
      expect(JSON.stringify(row)).not.toContain(value);
      expect(JSON.stringify(row)).not.toContain(secret);
      expect(t.app.secretBox.decrypt(row!.token)).toBe(value);
      expect(t.app.secretBox.decrypt(row!.webhookSecret)).toBe(secret);
    });

    it('refuses a base URL the address policy forbids (link-local, cloud metadata) without calling it', async () => {
      const account = await createAccount(t.app, t.outbox);
      const response = await connect(account, { baseUrl: 'http://169.254.169.254' });
      expect(response.statusCode).toBe(400);
      expect(response.json<{ message: string }>().message).toContain('169.254.169.254');
    });

    it("removes a user's connections with the account", async () => {
      const account = await createAccount(t.app, t.outbox);
      expect((await connect(account)).statusCode).toBe(201);
      expect((await call(account, 'DELETE', '/users')).statusCode).toBeLessThan(300);
      expect(await t.app.db.select().from(gitlabConnections).where(eq(gitlabConnections.userId, account.id))).toEqual([]);
    });
  });
});
