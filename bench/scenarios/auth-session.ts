import { signUp } from '../lib/accounts.js';
import { load, type LoadResult } from '../lib/http-load.js';
import { report } from '../lib/report.js';
import { startService, type Backend } from '../lib/service-process.js';

type Credential = 'cookie' | 'token';

/**
 * `GET /auth/session` with a valid cookie and with a personal API token (decisions.md §17), side by
 * side on one service: the cost of the authentication hook and its cache. The runs alternate
 * (cookie, token, token, cookie) so a machine that warms up or slows down favours neither; the
 * issue's target is the token's p99 within 10% of the cookie's.
 */
export async function authSessionBench(backend: Backend, durationSeconds: number) {
  const service = await startService(backend);
  try {
    const cookie = await signUp(service.url, service.dataDir);
    const token = await createToken(service.url, cookie);
    const headers: Record<Credential, Record<string, string>> = { cookie: { cookie }, token: { authorization: `Bearer ${token}` } };
    const runs: Record<Credential, LoadResult[]> = { cookie: [], token: [] };
    const half = Math.max(1, durationSeconds / 2);
    for (const credential of ['cookie', 'token', 'token', 'cookie'] as const) {
      runs[credential].push(await load({ url: `${service.url}/auth/session`, headers: headers[credential], duration: half }));
    }
    const figures = (credential: Credential) => {
      const [a, b] = runs[credential] as [LoadResult, LoadResult];
      return { 'req/s': mean(a.requestsPerSecond, b.requestsPerSecond), p50Ms: mean(a.p50Ms, b.p50Ms), p99Ms: mean(a.p99Ms, b.p99Ms), non2xx: a.non2xx + b.non2xx, errors: a.errors + b.errors };
    };
    const withCookie = figures('cookie');
    const withToken = figures('token');
    report(`GET /auth/session cookie [${backend}]`, withCookie);
    report(`GET /auth/session token [${backend}]`, withToken);
    report(`token / cookie [${backend}]`, { p99: withToken.p99Ms / withCookie.p99Ms, p50: withToken.p50Ms / withCookie.p50Ms, 'req/s': withToken['req/s'] / withCookie['req/s'] });
  } finally {
    await service.cleanup();
  }
}

const mean = (a: number, b: number) => (a + b) / 2;

/** A token made with the session, as the web app makes one. */
async function createToken(url: string, cookie: string): Promise<string> {
  const response = await fetch(`${url}/auth/tokens`, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'bench' }) });
  if (response.status !== 201) throw new Error(`POST /auth/tokens answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { token: string }).token;
}
