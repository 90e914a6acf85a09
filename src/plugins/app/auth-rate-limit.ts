import rateLimit, { normalizeIP } from '@fastify/rate-limit';
import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../../lib/app-error.js';

const WINDOW_MS = 60_000;

const emailOf = (request: FastifyRequest) => (request.body as { email?: unknown } | undefined)?.email;

/**
 * `authRateLimit`: a preHandler for the endpoints that take credentials or send codes. One budget
 * per IP and one per email, shared by all of them, in Redis when there is one so that every API
 * process counts together. If Redis fails the limit is skipped rather than locking everyone out.
 */
export default fp(
  async (app) => {
    await app.register(rateLimit, { global: false, redis: app.redis, nameSpace: 'rate-limit:', skipOnError: true });
    const max = app.config.authRateLimitPerMin;
    const byIp = app.createRateLimit({ max, timeWindow: WINDOW_MS, keyGenerator: (request) => `auth-ip:${normalizeIP(request.ip)}` });
    const byEmail = app.createRateLimit({ max, timeWindow: WINDOW_MS, keyGenerator: (request) => `auth-email:${String(emailOf(request))}` });

    app.decorate('authRateLimit', async (request, reply) => {
      const checks = [await byIp(request)];
      if (typeof emailOf(request) === 'string') checks.push(await byEmail(request));
      const exceeded = checks.find((check) => !check.isAllowed && check.isExceeded);
      if (exceeded !== undefined && !exceeded.isAllowed) {
        reply.header('retry-after', exceeded.ttlInSeconds);
        throw new AppError('TOO_MANY_REQUESTS', `Too many attempts; retry in ${exceeded.ttlInSeconds} seconds`);
      }
    });
  },
  { name: 'auth-rate-limit', dependencies: ['infrastructure'] },
);
