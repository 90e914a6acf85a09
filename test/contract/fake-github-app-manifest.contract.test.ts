import { createAppAuth } from '@octokit/auth-app';
import { exchangeWebFlowCode, refreshToken } from '@octokit/oauth-methods';
import { request } from '@octokit/request';
import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeGitHubApp } from '../fakes/fake-github-app.js';

/** The fake's manifest flow and App user tokens, checked with Octokit's own clients (decisions.md §13). */
describe("the fake GitHub's manifest flow", () => {
  let github: FakeGitHubApp;
  beforeAll(async () => {
    github = await new FakeGitHubApp().start();
    github.install(21, ['octo/setup']);
  });
  afterAll(() => github.stop());

  /** What a browser does with the form and GitHub's confirmation page: the code GitHub returns with. */
  async function codeFromConfirmation(path = '/settings/apps/new'): Promise<string> {
    const manifest = { name: 'Review', url: 'https://review.example.com', redirect_url: 'https://review.example.com/github/app-manifest/callback', default_permissions: { checks: 'write' }, default_events: ['check_run'] };
    const page = await fetch(`${github.url}${path}?state=s1`, { method: 'POST', body: new URLSearchParams({ manifest: JSON.stringify(manifest) }) });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('action="https://review.example.com/github/app-manifest/callback"');
    expect(html).toContain('name="state" value="s1"');
    return /name="code" value="([^"]+)"/.exec(html)![1]!;
  }

  it("@octokit/rest converts the code once, and the PEM it hands out signs JWTs GitHub accepts", async () => {
    const code = await codeFromConfirmation('/organizations/acme/settings/apps/new');
    const octokit = new Octokit({ baseUrl: github.url });
    const { status, data } = await octokit.apps.createFromManifest({ code });
    expect(status).toBe(201);
    expect(data).toMatchObject({ id: Number(github.appId), slug: github.slug, owner: { login: 'acme', type: 'Organization' }, html_url: `${github.url}/apps/${github.slug}` });
    expect(data.pem).toMatch(/^-----BEGIN RSA PRIVATE KEY-----/);
    expect(typeof data.webhook_secret).toBe('string');
    await expect(octokit.apps.createFromManifest({ code })).rejects.toMatchObject({ status: 404 });

    const auth = createAppAuth({ appId: data.id, privateKey: data.pem, request: request.defaults({ baseUrl: github.url }) });
    const { token } = await auth({ type: 'installation', installationId: 21 });
    expect(token).toMatch(/^ghs_/);
  });

  it("@octokit/oauth-methods signs a user in with the App's client id and refreshes the 8-hour token once", async () => {
    await codeFromConfirmation().then((code) => new Octokit({ baseUrl: github.url }).apps.createFromManifest({ code }));
    const { clientId, clientSecret } = github.manifests.credentials!;
    const { code } = github.authorize({ id: 77, login: 'octo', name: null, email: null });
    const octokitRequest = request.defaults({ baseUrl: github.url });
    const { authentication } = await exchangeWebFlowCode({ clientType: 'github-app', clientId, clientSecret, code, request: octokitRequest });
    expect(authentication).toMatchObject({ clientType: 'github-app', token: expect.stringMatching(/^ghu_/), refreshToken: expect.stringMatching(/^ghr_/) });
    const first = authentication as typeof authentication & { refreshToken: string; expiresAt: string };
    expect(Date.parse(first.expiresAt) - Date.now()).toBeGreaterThan(7.9 * 3600_000);

    const refreshed = await refreshToken({ clientType: 'github-app', clientId, clientSecret, refreshToken: first.refreshToken, request: octokitRequest });
    expect(refreshed.authentication.token).not.toBe(first.token);
    expect((await new Octokit({ auth: refreshed.authentication.token, baseUrl: github.url }).users.getAuthenticated()).data.login).toBe('octo');
    await expect(new Octokit({ auth: first.token, baseUrl: github.url }).users.getAuthenticated()).rejects.toMatchObject({ status: 401 });
    await expect(refreshToken({ clientType: 'github-app', clientId, clientSecret, refreshToken: first.refreshToken, request: octokitRequest })).rejects.toThrow(/refresh token/);
  });
});
