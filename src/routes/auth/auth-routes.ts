import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { AppError } from '../../lib/app-error.js';
import type { SessionInfo } from '../../services/session-service.js';
import { requireSession } from '../../plugins/app/authentication.js';
import { errorResponses, messageSchema, noContent } from '../common-schemas.js';
import {
  forgotPasswordBody,
  loginBody,
  resetPasswordBody,
  sessionResponse,
  sessionsResponse,
  signedInResponse,
  signupBody,
  verifyBody,
} from './auth-schemas.js';
import { clearSessionCookies, setSessionCookie } from '../../plugins/app/session-cookie.js';

const authRoutes: FastifyPluginAsyncZod = async (app) => {
  const { auth, sessions } = app.services;
  const secure = app.config.publicUrl.startsWith('https:');
  const tags = ['auth'];
  const limited = { config: { auth: 'public' as const }, preHandler: app.authRateLimit };

  app.post(
    '/signup',
    { ...limited, schema: { tags, summary: 'Register and email a verification code', body: signupBody, response: { 201: messageSchema, ...errorResponses(400, 409, 429, 503) } } },
    async (request, reply) => {
      await auth.signup(request.body);
      return reply.code(201).send({ message: 'Verification code sent to your email' });
    },
  );

  app.post(
    '/verify-email',
    { ...limited, schema: { tags, summary: 'Verify the email with its code and sign in', body: verifyBody, response: { 200: signedInResponse, ...errorResponses(400, 409, 429) } } },
    async (request, reply) => {
      const { token, user } = await auth.verifyEmail(request.body, request.headers['user-agent']);
      setSessionCookie(reply, token, secure);
      return { message: 'Email verified', user };
    },
  );

  app.post(
    '/login',
    { ...limited, schema: { tags, summary: 'Sign in with email and password', body: loginBody, response: { 200: signedInResponse, ...errorResponses(400, 401, 403, 429) } } },
    async (request, reply) => {
      const { token, user } = await auth.login(request.body, request.headers['user-agent']);
      setSessionCookie(reply, token, secure);
      return { message: 'Signed in', user };
    },
  );

  app.patch(
    '/forgot-password',
    { ...limited, schema: { tags, summary: 'Email a password reset code', body: forgotPasswordBody, response: { 202: messageSchema, ...errorResponses(400, 429) } } },
    async (request, reply) => {
      auth.requestRecovery(request.body.email);
      return reply.code(202).send({ message: 'If an account exists for this email, a reset code has been sent' });
    },
  );

  app.patch(
    '/verify-forgot-password',
    { ...limited, schema: { tags, summary: 'Verify a password reset code', body: verifyBody, response: { 200: messageSchema, ...errorResponses(400, 429) } } },
    async (request) => {
      await auth.verifyRecovery(request.body);
      return { message: 'Code verified: set a new password within 10 minutes' };
    },
  );

  app.patch(
    '/reset-password',
    {
      // A stolen API token must not change the password (decisions.md §17).
      config: { auth: 'optional', apiTokens: 'refused' },
      preHandler: app.authRateLimit,
      schema: {
        tags,
        summary: 'Change the password (with a session) or reset it (after verify-forgot-password)',
        body: resetPasswordBody,
        response: { 200: messageSchema, ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request) => {
      await auth.resetPassword(request.body, request.session);
      return { message: 'Password updated' };
    },
  );

  app.get(
    '/session',
    { schema: { tags, summary: 'The current session', response: { 200: sessionResponse, ...errorResponses(401) } } },
    async (request) => {
      const { userId, session } = requireSession(request);
      // With an API token there is no cookie session to describe (decisions.md §17).
      if (session === null) return { userId, session: { id: null, createdAt: null, expiresAt: null, userAgent: null } };
      return { userId, session: { id: session.id, createdAt: session.createdAt, expiresAt: session.expiresAt, userAgent: session.userAgent } };
    },
  );

  app.get(
    '/sessions',
    { schema: { tags, summary: "The user's active sessions", response: { 200: sessionsResponse, ...errorResponses(401) } } },
    async (request) => {
      const { userId, session: current } = requireSession(request);
      const list = await sessions.listForUser(userId);
      return list.map(({ id, createdAt, expiresAt, userAgent }) => ({ id, createdAt, expiresAt, userAgent, current: id === current?.id }));
    },
  );

  app.delete(
    '/logout',
    { schema: { tags, summary: 'Revoke the current session (an API token is revoked with DELETE /auth/tokens/:id)', response: { 204: noContent, ...errorResponses(400, 401, 503) } } },
    async (request, reply) => {
      await sessions.revoke(cookieSession(request).id);
      clearSessionCookies(reply, secure);
      return reply.code(204).send(null);
    },
  );

  app.delete(
    '/logout-all',
    { schema: { tags, summary: "Revoke all the user's sessions (not their API tokens)", response: { 204: noContent, ...errorResponses(400, 401, 503) } } },
    async (request, reply) => {
      await sessions.revokeAll(cookieSession(request).userId);
      clearSessionCookies(reply, secure);
      return reply.code(204).send(null);
    },
  );
};

/** Signing out concerns cookie sessions; a token is revoked instead (decisions.md §17). */
function cookieSession(request: FastifyRequest): SessionInfo {
  const { session } = requireSession(request);
  if (session === null) throw new AppError('BAD_REQUEST', 'An API token does not sign out: revoke it with DELETE /auth/tokens/:id');
  return session;
}

export default authRoutes;
