import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, signUp, uniqueEmail } from '../helpers/accounts.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

const wrongCode = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');
/** How long a code is valid, and a verified recovery lasts: ten minutes. */
const TEN_MINUTES = 10 * 60 * 1000;

describe('auth: bad input and wrong credentials', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const post = (url: string, payload: object) => t.app.inject({ method: 'POST', url, payload });
  const patch = (url: string, payload: object) => t.app.inject({ method: 'PATCH', url, payload });
  const verifyEmail = (email: string, otp: string) => post('/auth/verify-email', { email, otp });

  it.each([
    ['missing fields', {}, 'body.name'],
    ['an empty name', { name: '  ', email: 'a@example.com', password: 'long enough' }, 'body.name'],
    ['a name over 56 characters', { name: 'x'.repeat(57), email: 'a@example.com', password: 'long enough' }, 'body.name'],
    ['an invalid email', { name: 'A', email: 'not-an-email', password: 'long enough' }, 'body.email'],
    ['an email over 264 characters', { name: 'A', email: `${'a'.repeat(260)}@example.com`, password: 'long enough' }, 'body.email'],
    ['a password under 8 characters', { name: 'A', email: 'a@example.com', password: 'short' }, 'body.password'],
    ['a password over 128 characters', { name: 'A', email: 'a@example.com', password: 'p'.repeat(129) }, 'body.password'],
    ['a number for the name', { name: 42, email: 'a@example.com', password: 'long enough' }, 'body.name'],
  ])('signup refuses %s with 400 and the field path', async (_label, payload, path) => {
    const response = await t.app.inject({ method: 'POST', url: '/auth/signup', payload });
    expect(response.statusCode).toBe(400);
    const body = response.json<{ statusCode: number; error: string; message: string; details: Array<{ path: string }> }>();
    expect(body).toMatchObject({ statusCode: 400, error: 'Bad Request' });
    expect(body.details.map((detail) => detail.path)).toContain(path);
  });

  it('refuses malformed JSON, a non-JSON body and an oversized body without a 500', async () => {
    const malformed = await t.app.inject({ method: 'POST', url: '/auth/login', headers: { 'content-type': 'application/json' }, payload: '{"email":' });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json()).toMatchObject({ statusCode: 400, error: 'Bad Request' });

    const text = await t.app.inject({ method: 'POST', url: '/auth/login', headers: { 'content-type': 'text/plain' }, payload: 'hello' });
    expect(text.statusCode).toBe(415);
    expect(text.json()).toMatchObject({ statusCode: 415, error: 'Unsupported Media Type' });

    const huge = await t.app.inject({
      method: 'POST',
      url: '/auth/signup',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) }),
    });
    expect(huge.statusCode).toBe(413);
    expect(huge.json()).toMatchObject({ statusCode: 413, error: 'Payload Too Large' });
  });

  it('signup for a verified email is 409', async () => {
    const account = await createAccount(t.app, t.outbox);
    const response = await t.app.inject({ method: 'POST', url: '/auth/signup', payload: { name: 'Again', email: account.email.toUpperCase(), password: 'whatever123' } });
    expect(response.statusCode).toBe(409);
    expect(response.json()).toMatchObject({ statusCode: 409, error: 'Conflict' });
  });

  it('verify-email refuses a malformed code, a wrong code and an unknown email', async () => {
    const { email, code } = await signUp(t.app, t.outbox);

    for (const otp of ['12345', '1234567', 'abcdef', '']) {
      expect((await verifyEmail(email, otp)).statusCode).toBe(400);
    }
    const wrong = await verifyEmail(email, wrongCode(code));
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json<{ message: string }>().message).toBe('Invalid or expired code');
    expect(wrong.cookies).toEqual([]);

    const unknown = await verifyEmail(uniqueEmail('nobody'), code);
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json<{ message: string }>().message).toBe('Invalid or expired code');

    // A wrong try does not stop the right code from working.
    expect((await verifyEmail(email, code)).statusCode).toBe(200);
    // ...once: the code is spent.
    expect((await verifyEmail(email, code)).statusCode).toBe(400);
  });

  it('five wrong codes void the code, even the right one after them', async () => {
    const { email, code } = await signUp(t.app, t.outbox);
    for (let i = 0; i < 5; i++) {
      expect((await verifyEmail(email, wrongCode(code))).statusCode).toBe(400);
    }
    const right = await verifyEmail(email, code);
    expect(right.statusCode).toBe(400);
    expect(right.json<{ message: string }>().message).toMatch(/void/);
    expect(await t.app.repos.users.findByEmail(email)).toBeUndefined();
  });

  it('ten concurrent wrong guesses: only five tries are counted, and the code is void after them', async () => {
    const { email, code } = await signUp(t.app, t.outbox);
    const guesses = await Promise.all(Array.from({ length: 10 }, () => verifyEmail(email, wrongCode(code))));
    expect(guesses.map((response) => response.statusCode)).toEqual(Array.from({ length: 10 }, () => 400));
    expect((await t.app.repos.otpRecords.find(email))?.attempts).toBe(5);
    const right = await verifyEmail(email, code);
    expect(right.statusCode).toBe(400);
    expect(right.json<{ message: string }>().message).toMatch(/void/);
    expect(await t.app.repos.users.findByEmail(email)).toBeUndefined();
  });

  it('four concurrent wrong guesses and the right code: within five tries the right code signs in, once', async () => {
    const { email, code } = await signUp(t.app, t.outbox);
    // Five tries at once never exceed the limit, whatever order they are counted in.
    const [right, ...wrong] = await Promise.all([verifyEmail(email, code), ...Array.from({ length: 4 }, () => verifyEmail(email, wrongCode(code)))]);
    expect(right.statusCode, right.body).toBe(200);
    expect(right.cookies.map((cookie) => cookie.name)).toContain('session');
    expect(wrong.map((response) => response.statusCode)).toEqual([400, 400, 400, 400]);
    expect(await t.app.repos.users.findByEmail(email)).toMatchObject({ id: right.json<{ user: { id: string } }>().user.id });
    // The code is spent.
    expect(await t.app.repos.otpRecords.find(email)).toBeUndefined();
  });

  it('a code is valid for ten minutes; an expired code is refused', async () => {
    const issuedAfter = Date.now();
    const { email, code } = await signUp(t.app, t.outbox);
    const record = (await t.app.repos.otpRecords.find(email))!;
    expect(record.expiresAt.getTime()).toBeGreaterThanOrEqual(issuedAfter + TEN_MINUTES);
    expect(record.expiresAt.getTime()).toBeLessThanOrEqual(Date.now() + TEN_MINUTES);

    await t.app.repos.otpRecords.replace({ ...record, expiresAt: new Date(Date.now() - 1) });
    const response = await verifyEmail(email, code);
    expect(response.statusCode).toBe(400);
    expect(response.json<{ message: string }>().message).toBe('Invalid or expired code');
  });

  it('login with a wrong password or an unknown email: the same 401, no cookie', async () => {
    const account = await createAccount(t.app, t.outbox);
    const wrong = await post('/auth/login', { email: account.email, password: 'not the password' });
    const unknown = await post('/auth/login', { email: uniqueEmail('ghost'), password: 'not the password' });
    for (const response of [wrong, unknown]) {
      expect(response.statusCode).toBe(401);
      expect(response.cookies).toEqual([]);
    }
    expect(wrong.json()).toEqual(unknown.json());
  });

  it('forgot-password answers the same 202 for an unknown email, and sends nothing', async () => {
    const account = await createAccount(t.app, t.outbox);
    const ghost = uniqueEmail('ghost');
    const known = await patch('/auth/forgot-password', { email: account.email });
    const unknown = await patch('/auth/forgot-password', { email: ghost });
    expect(known.statusCode).toBe(202);
    expect(unknown.statusCode).toBe(202);
    expect(unknown.json()).toEqual(known.json());
    await t.outbox.latest(account.email, { subject: 'Reset your password' });
    expect((await t.outbox.all()).some((email) => email.to === ghost)).toBe(false);
  });

  it('verify-forgot-password refuses a wrong code; reset without a verified code is 401', async () => {
    const account = await createAccount(t.app, t.outbox);
    await patch('/auth/forgot-password', { email: account.email });
    const code = await t.outbox.code(account.email, { subject: 'Reset your password' });
    expect((await patch('/auth/verify-forgot-password', { email: account.email, otp: wrongCode(code) })).statusCode).toBe(400);

    const early = await patch('/auth/reset-password', { email: account.email, password: 'new password 1' });
    expect(early.statusCode).toBe(401);
    // A signup code is not a recovery code.
    expect((await patch('/auth/verify-forgot-password', { email: uniqueEmail('other'), otp: code })).statusCode).toBe(400);
  });

  it('a recovery verified more than ten minutes ago no longer resets; one verified within them does', async () => {
    const account = await createAccount(t.app, t.outbox);
    await patch('/auth/forgot-password', { email: account.email });
    const code = await t.outbox.code(account.email, { subject: 'Reset your password' });
    expect((await patch('/auth/verify-forgot-password', { email: account.email, otp: code })).statusCode).toBe(200);
    await t.app.repos.otpRecords.markVerified(`forgot:${account.email}`, new Date(Date.now() - TEN_MINUTES - 1000));
    expect((await patch('/auth/reset-password', { email: account.email, password: 'new password 1' })).statusCode).toBe(401);
    await t.app.repos.otpRecords.markVerified(`forgot:${account.email}`, new Date(Date.now() - TEN_MINUTES + 30_000));
    expect((await patch('/auth/reset-password', { email: account.email, password: 'new password 1' })).statusCode).toBe(200);
  });

  it('reset-password: without a session the email is required; with one, oldPassword is required and checked', async () => {
    const account = await createAccount(t.app, t.outbox);
    const noEmail = await patch('/auth/reset-password', { password: 'new password 1' });
    expect(noEmail.statusCode).toBe(400);

    const reset = (payload: object) => t.app.inject({ method: 'PATCH', url: '/auth/reset-password', headers: { cookie: account.cookie }, payload });
    expect((await reset({ password: 'new password 1' })).statusCode).toBe(400);
    expect((await reset({ oldPassword: 'wrong password', password: 'new password 1' })).statusCode).toBe(403);
    expect((await reset({ oldPassword: account.password, password: 'short' })).statusCode).toBe(400);
  });
});
