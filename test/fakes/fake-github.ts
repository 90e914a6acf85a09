import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FakeGitHost } from './fake-git-host.js';

export interface FakeGitHubUser {
  id: number;
  login: string;
  name: string | null;
  /** The public email; null for accounts that keep it private. */
  email: string | null;
  emails?: Array<{ email: string; primary: boolean; verified: boolean }>;
}

export type FakeSend = (status: number, payload: unknown, type?: string, headers?: Record<string, string>) => void;

export interface RecordedRequest {
  method: string;
  path: string;
  /** The query string's parameters (e.g. `ref` of a contents read). */
  query: Record<string, string>;
  headers: IncomingMessage['headers'];
  body: string;
  /** When it arrived (ms since the epoch). */
  at: number;
}

/**
 * A local GitHub: the OAuth token exchange on the web host and the REST endpoints the service
 * calls, speaking GitHub's wire format, so the real client code runs in tests.
 */
export class FakeGitHub {
  readonly requests: RecordedRequest[] = [];
  protected readonly codes = new Map<string, string>();
  protected readonly tokens = new Map<string, FakeGitHubUser>();
  protected readonly diffs = new Map<string, string>();
  private readonly compares = new Map<string, string>();
  private readonly files = new Map<string, string>();
  /** Fails this many diff requests with a 502 before answering (GitHub having a bad minute). */
  failDiffs = 0;
  private server: Server | undefined;
  url = '';
  /** The code of repositories: tarballs, trees, blobs and contents read from git fixtures. */
  readonly code = new FakeGitHost(() => this.url);

  async start(): Promise<this> {
    this.server = createServer((request, response) => void this.handle(request, response));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** Registers a GitHub account; returns the OAuth code that GitHub would hand the callback. */
  authorize(user: FakeGitHubUser, token = `gho_${user.id}_${Math.random().toString(36).slice(2)}`): { code: string; token: string } {
    const code = `code-${user.id}-${Math.random().toString(36).slice(2)}`;
    this.codes.set(code, token);
    this.tokens.set(token, user);
    return { code, token };
  }

  setDiff(fullName: string, number: number, diff: string) {
    this.diffs.set(`${fullName}#${number}`, diff);
  }

  setCompare(fullName: string, base: string, head: string, diff: string) {
    this.compares.set(`${fullName}@${base}...${head}`, diff);
  }

  setFile(fullName: string, ref: string, path: string, content: string) {
    this.files.set(`${fullName}@${ref}:${path}`, content);
  }

  /** A subclass's own endpoints and checks, tried first; true when it answered. */
  protected route(_request: IncomingMessage, _url: URL, _body: string, _send: FakeSend): Promise<boolean> {
    return Promise.resolve(false);
  }

  private async handle(request: IncomingMessage, response: ServerResponse) {
    const body = await new Promise<string>((resolve) => {
      let data = '';
      request.on('data', (chunk: Buffer) => (data += chunk.toString()));
      request.on('end', () => resolve(data));
    });
    const url = new URL(request.url ?? '/', this.url);
    this.requests.push({ method: request.method ?? 'GET', path: url.pathname, query: Object.fromEntries(url.searchParams), headers: request.headers, body, at: Date.now() });
    const send = (status: number, payload: unknown, type = 'application/json', headers: Record<string, string> = {}) => {
      response.writeHead(status, { 'content-type': type, ...headers });
      response.end(typeof payload === 'string' ? payload : JSON.stringify(payload));
    };
    if (await this.route(request, url, body, send)) return;

    if (request.method === 'POST' && url.pathname === '/login/oauth/access_token') {
      const { code } = JSON.parse(body || '{}') as { code?: string };
      const token = code === undefined ? undefined : this.codes.get(code);
      if (code !== undefined) this.codes.delete(code);
      // GitHub answers a bad code with 200 and an error field.
      return token === undefined
        ? send(200, { error: 'bad_verification_code', error_description: 'The code passed is incorrect or expired.' })
        : send(200, { access_token: token, token_type: 'bearer', scope: 'read:user,user:email,repo' });
    }

    const user = this.tokens.get((request.headers.authorization ?? '').replace(/^(Bearer|token) /i, ''));
    if (url.pathname === '/user') return user ? send(200, { id: user.id, login: user.login, name: user.name, email: user.email }) : send(401, { message: 'Bad credentials' });
    if (url.pathname === '/user/emails') return user ? send(200, user.emails ?? []) : send(401, { message: 'Bad credentials' });

    const pull = /^\/repos\/([^/]+\/[^/]+)\/pulls\/(\d+)$/.exec(url.pathname);
    if (pull && request.headers.accept === 'application/vnd.github.diff') {
      if (this.failDiffs > 0) {
        this.failDiffs--;
        return send(502, { message: 'Server Error' });
      }
      const diff = this.diffs.get(`${pull[1]}#${pull[2]}`);
      return diff === undefined ? send(404, { message: 'Not Found' }) : send(200, diff, 'text/plain; charset=utf-8');
    }
    const compare = /^\/repos\/([^/]+\/[^/]+)\/compare\/([^.]+)\.\.\.(.+)$/.exec(url.pathname);
    if (compare && request.headers.accept === 'application/vnd.github.diff') {
      const diff = this.compares.get(`${compare[1]}@${compare[2]}...${compare[3]}`);
      return diff === undefined ? send(404, { message: 'Not Found' }) : send(200, diff, 'text/plain; charset=utf-8');
    }
    const contents = /^\/repos\/([^/]+\/[^/]+)\/contents\/(.+)$/.exec(url.pathname);
    if (contents && request.headers.accept === 'application/vnd.github.raw') {
      const file = this.files.get(`${contents[1]}@${url.searchParams.get('ref')}:${decodeURIComponent(contents[2]!)}`);
      if (file !== undefined) return send(200, file, 'text/plain; charset=utf-8');
    }
    if (request.method === 'GET' && this.code.handle(request, url, response, send)) return;
    send(404, { message: 'Not Found' });
  }
}
