import { join } from 'node:path';
import { Outbox } from '../../test/helpers/outbox.js';
import type { Backend } from '../lib/bench-app.js';
import { startBenchApp } from '../lib/bench-app.js';
import { load } from '../lib/http-load.js';
import { report } from '../lib/report.js';

/** `GET /auth/session` with a valid cookie: the cost of the authentication hook and the session cache. */
export async function authSessionBench(backend: Backend, durationSeconds: number) {
  const bench = await startBenchApp(backend);
  try {
    const email = 'bench@example.com';
    const post = (path: string, body: unknown) =>
      fetch(`${bench.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    await post('/auth/signup', { name: 'Bench', email, password: 'bench password' });
    const otp = await new Outbox(join(bench.dataDir, 'outbox')).code(email);
    const verify = await post('/auth/verify-email', { email, otp });
    const cookie = verify.headers.getSetCookie()[0]!.split(';')[0]!;

    const result = await load({ url: `${bench.url}/auth/session`, headers: { cookie }, duration: durationSeconds });
    report(`GET /auth/session [${backend}]`, { 'req/s': result.requestsPerSecond, p50Ms: result.p50Ms, p99Ms: result.p99Ms, non2xx: result.non2xx, errors: result.errors });
  } finally {
    await bench.close();
  }
}
