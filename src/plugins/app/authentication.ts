import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../../lib/app-error.js';
import { SESSION_COOKIE } from './session-cookie.js';
import type { SessionInfo } from '../../services/session-service.js';

/**
 * The one authentication hook. Every route needs a session unless it says otherwise in its
 * config (`auth: 'public'` or `'optional'`), so a new route is protected by default.
 */
export default fp(
  async (app) => {
    app.decorateRequest('session', null);
    app.addHook('onRequest', async (request) => {
      const mode = request.routeOptions.config.auth ?? 'required';
      if (mode === 'public' || request.is404) return;
      const token = request.cookies[SESSION_COOKIE];
      request.session = token ? await app.services.sessions.resolve(token) : null;
      if (mode === 'required' && request.session === null) {
        throw new AppError('UNAUTHORIZED', token ? 'The session has expired or was revoked; sign in again' : 'Sign in first');
      }
    });
  },
  { name: 'authentication', dependencies: ['services', '@fastify/cookie'] },
);

/** The session of a route the hook guards. */
export function requireSession(request: FastifyRequest): SessionInfo {
  if (request.session === null) throw new AppError('UNAUTHORIZED', 'Sign in first');
  return request.session;
}
