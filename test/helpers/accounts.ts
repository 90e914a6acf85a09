import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { Outbox } from './outbox.js';

let counter = 0;

export interface Account {
  id: string;
  name: string;
  email: string;
  password: string;
  /** `session=<token>`, ready for a Cookie header. */
  cookie: string;
}

/** The session cookie a response set, as a request header value. */
export function sessionCookie(response: LightMyRequestResponse): string {
  const cookie = response.cookies.find((item) => item.name === 'session');
  if (!cookie) throw new Error(`no session cookie in a ${response.statusCode} response: ${response.body}`);
  return `session=${cookie.value}`;
}

/** The session cookie a `fetch` response set (a real process, not `inject`), as a request header value. */
export function cookieOf(response: Response): string {
  const cookie = response.headers.getSetCookie().find((item) => item.startsWith('session='));
  if (!cookie) throw new Error(`no session cookie in a ${response.status} response`);
  return cookie.split(';')[0]!;
}

export const uniqueEmail = (label = 'user') => `${label}-${process.pid}-${Date.now().toString(36)}-${++counter}@example.com`;

export interface SignUp {
  name: string;
  email: string;
  password: string;
  /** The verification code from the email. */
  code: string;
  /** The answer to the signup request (201). */
  response: LightMyRequestResponse;
}

/** Signs up and reads the code from the outbox, leaving the email unverified. */
export async function signUp(app: FastifyInstance, outbox: Outbox, overrides: Partial<Pick<Account, 'name' | 'email' | 'password'>> = {}): Promise<SignUp> {
  const name = overrides.name ?? 'Test User';
  const email = overrides.email ?? uniqueEmail();
  const password = overrides.password ?? 'a long enough password';
  const response = await app.inject({ method: 'POST', url: '/auth/signup', payload: { name, email, password } });
  expect(response.statusCode, response.body).toBe(201);
  return { name, email, password, code: await outbox.code(email), response };
}

/** Signs up, reads the code from the outbox and verifies, as a new user would. */
export async function createAccount(app: FastifyInstance, outbox: Outbox, overrides: Partial<Pick<Account, 'name' | 'email' | 'password'>> = {}): Promise<Account> {
  const { name, email, password, code } = await signUp(app, outbox, overrides);
  const verify = await app.inject({ method: 'POST', url: '/auth/verify-email', payload: { email, otp: code } });
  expect(verify.statusCode, verify.body).toBe(200);
  const { user } = verify.json<{ user: { id: string } }>();
  return { id: user.id, name, email, password, cookie: sessionCookie(verify) };
}
