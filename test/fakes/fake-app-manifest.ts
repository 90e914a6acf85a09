import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FakeGitHubUser, FakeSend } from './fake-github.js';

/** The App GitHub creates from a manifest: who it is, and the credentials the conversion hands out once. */
export interface FakeAppIdentity {
  appId: string;
  slug: string;
  privateKey: string;
  url: string;
}

export interface FakeAppCredentials {
  clientId: string;
  clientSecret: string;
  webhookSecret: string;
}

interface Manifest {
  name?: string;
  url?: string;
  redirect_url?: string;
  default_permissions?: Record<string, string>;
  default_events?: string[];
}

interface PendingApp {
  manifest: Manifest;
  organization: string | null;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/**
 * GitHub's manifest flow and a GitHub App's user tokens, as GitHub serves them:
 * - `POST /settings/apps/new?state=` (or `/organizations/<org>/settings/apps/new`) with the form
 *   field `manifest` shows a confirmation page whose button returns to the manifest's
 *   `redirect_url` with a code and the state;
 * - `POST /app-manifests/{code}/conversions` answers 201 with the App and its credentials, once;
 * - `POST /login/oauth/access_token` with the App's client id hands out user tokens that expire in
 *   8 hours with a refresh token, and takes `grant_type=refresh_token` (a refresh token works once).
 */
export class FakeAppManifestFlow {
  /** The manifests GitHub received, as posted. */
  readonly received: PendingApp[] = [];
  readonly conversions: string[] = [];
  /** Set once the App exists. */
  credentials: FakeAppCredentials | undefined;
  /** Refresh grants GitHub answered. */
  readonly refreshes: string[] = [];
  private readonly pending = new Map<string, PendingApp>();
  private readonly refreshTokens = new Map<string, string>();

  constructor(
    private readonly identity: () => FakeAppIdentity,
    /** The plain fake's OAuth codes and tokens (`authorize()` fills them). */
    private readonly oauth: { codes: Map<string, string>; tokens: Map<string, FakeGitHubUser> },
  ) {}

  route(request: IncomingMessage, url: URL, body: string, send: FakeSend): boolean {
    const method = request.method ?? 'GET';
    const newApp = /^(?:\/organizations\/([^/]+))?\/settings\/apps\/new$/.exec(url.pathname);
    if (newApp && method === 'POST') return this.confirmationPage(newApp[1] ?? null, url, body, send);
    const conversion = /^\/app-manifests\/([^/]+)\/conversions$/.exec(url.pathname);
    if (conversion && method === 'POST') return this.convert(decodeURIComponent(conversion[1]!), send);
    if (url.pathname === '/login/oauth/access_token' && method === 'POST') return this.userToken(body, send);
    return false;
  }

  private confirmationPage(organization: string | null, url: URL, body: string, send: FakeSend): true {
    const form = new URLSearchParams(body);
    let manifest: Manifest;
    try {
      manifest = JSON.parse(form.get('manifest') ?? '') as Manifest;
    } catch {
      send(422, 'Invalid manifest', 'text/html');
      return true;
    }
    const code = randomBytes(10).toString('hex');
    const app = { manifest, organization };
    this.pending.set(code, app);
    this.received.push(app);
    const name = escapeHtml(manifest.name ?? '');
    const action = escapeHtml(manifest.redirect_url ?? '');
    const state = escapeHtml(url.searchParams.get('state') ?? '');
    send(
      200,
      `<!doctype html><html><head><title>Create GitHub App</title></head><body>
<h1>Create GitHub App ${name}${organization === null ? '' : ` for ${escapeHtml(organization)}`}</h1>
<form method="get" action="${action}"><input type="hidden" name="code" value="${code}"><input type="hidden" name="state" value="${state}"><button type="submit">Create GitHub App for ${name}</button></form>
</body></html>`,
      'text/html; charset=utf-8',
    );
    return true;
  }

  private convert(code: string, send: FakeSend): true {
    const app = this.pending.get(code);
    this.pending.delete(code);
    if (app === undefined) {
      send(404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest/apps/apps#create-a-github-app-from-a-manifest' });
      return true;
    }
    this.conversions.push(code);
    const { appId, slug, privateKey, url } = this.identity();
    this.credentials = { clientId: `Iv23li${randomBytes(7).toString('hex')}`, clientSecret: randomBytes(20).toString('hex'), webhookSecret: randomBytes(20).toString('hex') };
    const now = new Date().toISOString();
    const owner = app.organization === null ? { login: 'operator', id: 6_000_001, type: 'User' } : { login: app.organization, id: 6_000_002, type: 'Organization' };
    send(201, {
      id: Number(appId),
      slug,
      node_id: `A_${appId}`,
      owner,
      name: app.manifest.name,
      description: null,
      external_url: app.manifest.url,
      html_url: `${url}/apps/${slug}`,
      created_at: now,
      updated_at: now,
      permissions: app.manifest.default_permissions,
      events: app.manifest.default_events,
      client_id: this.credentials.clientId,
      client_secret: this.credentials.clientSecret,
      webhook_secret: this.credentials.webhookSecret,
      pem: privateKey,
    });
    return true;
  }

  /** Only requests for the App's client id; an OAuth app's are the plain fake's. */
  private userToken(body: string, send: FakeSend): boolean {
    const request = JSON.parse(body || '{}') as { client_id?: string; client_secret?: string; code?: string; grant_type?: string; refresh_token?: string };
    if (this.credentials === undefined || request.client_id !== this.credentials.clientId) return false;
    if (request.client_secret !== this.credentials.clientSecret) {
      send(200, { error: 'incorrect_client_credentials', error_description: 'The client_id and/or client_secret passed are incorrect.' });
      return true;
    }
    let user: FakeGitHubUser | undefined;
    if (request.grant_type === 'refresh_token') {
      const previous = request.refresh_token === undefined ? undefined : this.refreshTokens.get(request.refresh_token);
      if (previous !== undefined) {
        this.refreshTokens.delete(request.refresh_token!);
        user = this.oauth.tokens.get(previous);
        this.oauth.tokens.delete(previous);
        this.refreshes.push(request.refresh_token!);
      }
      if (user === undefined) {
        send(200, { error: 'bad_refresh_token', error_description: 'The refresh token passed is incorrect or expired.' });
        return true;
      }
    } else {
      const token = request.code === undefined ? undefined : this.oauth.codes.get(request.code);
      if (request.code !== undefined) this.oauth.codes.delete(request.code);
      user = token === undefined ? undefined : this.oauth.tokens.get(token);
      if (token !== undefined) this.oauth.tokens.delete(token);
      if (user === undefined) {
        send(200, { error: 'bad_verification_code', error_description: 'The code passed is incorrect or expired.' });
        return true;
      }
    }
    const accessToken = `ghu_${randomBytes(12).toString('hex')}`;
    const refreshToken = `ghr_${randomBytes(20).toString('hex')}`;
    this.oauth.tokens.set(accessToken, user);
    this.refreshTokens.set(refreshToken, accessToken);
    send(200, { access_token: accessToken, expires_in: 28_800, refresh_token: refreshToken, refresh_token_expires_in: 15_897_600, token_type: 'bearer', scope: '' });
    return true;
  }
}
