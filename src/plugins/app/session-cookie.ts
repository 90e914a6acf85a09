import type { FastifyReply } from 'fastify';
import { SESSION_TTL_SECONDS } from '../../services/session-service.js';

export const SESSION_COOKIE = 'session';
/** An older cookie name the API document says account deletion clears as well. */
export const LEGACY_SESSION_COOKIE = 'sessionId';

export function setSessionCookie(reply: FastifyReply, token: string, secure: boolean) {
  reply.setCookie(SESSION_COOKIE, token, { httpOnly: true, sameSite: 'lax', path: '/', maxAge: SESSION_TTL_SECONDS, secure });
}

export function clearSessionCookies(reply: FastifyReply, secure: boolean, ...names: string[]) {
  for (const name of [SESSION_COOKIE, ...names]) reply.clearCookie(name, { httpOnly: true, sameSite: 'lax', path: '/', secure });
}
