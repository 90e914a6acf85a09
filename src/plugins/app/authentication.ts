import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../../lib/app-error.js';
import { SESSION_COOKIE } from './session-cookie.js';
import type { ApiTokenInfo } from '../../services/api-token-service.js';
import type { SessionInfo } from '../../services/session-service.js';

/** Who a request acts for: a cookie session, or an API token (decisions.md §17), never both. */
export interface Caller {
  userId: string;
  /** The cookie session; null when a token authenticated the request. */
  session: SessionInfo | null;
  apiToken: ApiTokenInfo | null;
}

/**
 * The one authentication hook. Every route needs a session (or an API token) unless it says
 * otherwise in its config (`auth: 'public'` or `'optional'`), so a new route is protected by
 * default; `apiTokens` says what a token gets on the route.
 */
export default fp(
  async (app) => {
    app.decorateRequest('session', null);
    app.decorateRequest('apiToken', null);
    app.addHook('onRequest', async (request, reply) => {
      const { auth: mode = 'required', apiTokens = 'accepted' } = request.routeOptions.config;
      if (mode === 'public' || request.is404) return;
      const cookie = request.cookies[SESSION_COOKIE];
      const bearer = bearerCredential(request.headers.authorization);
      if (bearer !== undefined) {
        if (cookie) throw new AppError('BAD_REQUEST', 'Send a session cookie or an API token, not both');
        // Operators' routes do not exist for a token, valid or not (decisions.md §13, §17).
        if (apiTokens === 'hidden') throw new AppError('NOT_FOUND', 'Not Found');
        request.apiToken = await app.services.apiTokens.resolve(bearer);
        if (request.apiToken === null) {
          reply.header('www-authenticate', 'Bearer error="invalid_token"');
          throw new AppError('UNAUTHORIZED', 'The API token is unknown, revoked or expired');
        }
        if (apiTokens === 'refused') throw new AppError('FORBIDDEN', 'An API token cannot be used here; sign in to the web app');
        return;
      }
      request.session = cookie ? await app.services.sessions.resolve(cookie) : null;
      if (mode === 'required' && request.session === null) {
        throw new AppError('UNAUTHORIZED', cookie ? 'The session has expired or was revoked; sign in again' : 'Sign in first');
      }
    });
  },
  { name: 'authentication', dependencies: ['services', '@fastify/cookie'] },
);

/** The token of an `Authorization: Bearer` header (RFC 6750; the scheme is case-insensitive), else undefined. */
function bearerCredential(header: string | undefined): string | undefined {
  const match = header === undefined ? null : /^bearer(?:\s+(.*))?$/i.exec(header.trim());
  return match === null ? undefined : (match[1] ?? '');
}

/** Who the request acts for, or null when it carries no valid credential (optional routes). */
export function callerOf(request: FastifyRequest): Caller | null {
  const { session, apiToken } = request;
  if (session !== null) return { userId: session.userId, session, apiToken: null };
  if (apiToken !== null) return { userId: apiToken.userId, session: null, apiToken };
  return null;
}

/** The caller of a route the hook guards: a cookie session or an API token. */
export function requireSession(request: FastifyRequest): Caller {
  const caller = callerOf(request);
  if (caller === null) throw new AppError('UNAUTHORIZED', 'Sign in first');
  return caller;
}
