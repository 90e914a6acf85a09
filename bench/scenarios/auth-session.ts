import { signUp } from '../lib/accounts.js';
import { load } from '../lib/http-load.js';
import { report } from '../lib/report.js';
import { startService, type Backend } from '../lib/service-process.js';

/** `GET /auth/session` with a valid cookie: the cost of the authentication hook and the session cache. */
export async function authSessionBench(backend: Backend, durationSeconds: number) {
  const service = await startService(backend);
  try {
    const cookie = await signUp(service.url, service.dataDir);
    const result = await load({ url: `${service.url}/auth/session`, headers: { cookie }, duration: durationSeconds });
    report(`GET /auth/session [${backend}]`, { 'req/s': result.requestsPerSecond, p50Ms: result.p50Ms, p99Ms: result.p99Ms, non2xx: result.non2xx, errors: result.errors });
  } finally {
    await service.cleanup();
  }
}
