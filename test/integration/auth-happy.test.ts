import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, sessionCookie, uniqueEmail } from '../helpers/accounts.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

const SAFARI_MAC =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15';
const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';

describe('auth: the happy paths', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('signs up, verifies the emailed code and gets a session cookie', async () => {
    const email = uniqueEmail('Signup').replace('Signup', 'SIGNUP');
    const signup = await t.app.inject({ method: 'POST', url: '/auth/signup', payload: { name: 'Ada', email, password: 'correct horse battery' } });
    expect(signup.statusCode).toBe(201);
    expect(signup.json()).toEqual({ message: expect.any(String) });

    const lower = email.toLowerCase();
    const otp = await t.outbox.code(lower);
    const verify = await t.app.inject({ method: 'POST', url: '/auth/verify-email', payload: { email, otp }, headers: { 'user-agent': SAFARI_MAC } });
    expect(verify.statusCode).toBe(200);
    expect(verify.json()).toEqual({ message: expect.any(String), user: { id: expect.any(String), name: 'Ada', email: lower } });

    const cookie = verify.cookies.find((item) => item.name === 'session')!;
    expect(cookie.value).toMatch(/^[0-9a-f]{64}$/);
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/', maxAge: 30 * 24 * 3600 });
    expect(cookie.secure).toBeFalsy();

    const session = await t.app.inject({ method: 'GET', url: '/auth/session', headers: { cookie: sessionCookie(verify) } });
    expect(session.statusCode).toBe(200);
    const body = session.json<{ userId: string; session: { id: string; createdAt: string; expiresAt: string; userAgent: unknown } }>();
    expect(body.userId).toBe(verify.json<{ user: { id: string } }>().user.id);
    // The id shown is the stored hash, never the cookie token.
    expect(body.session.id).toMatch(/^[0-9a-f]{64}$/);
    expect(body.session.id).not.toBe(cookie.value);
    expect(body.session.userAgent).toEqual({ browser: 'Safari 17', os: 'Mac OS 10.15.7', platform: 'desktop' });
    expect(body.session.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Date.parse(body.session.expiresAt) - Date.parse(body.session.createdAt)).toBe(30 * 24 * 3600 * 1000);
  });

  it('logs in case-insensitively, lists sessions with the current one marked, and logs out', async () => {
    const account = await createAccount(t.app, t.outbox);
    const login = await t.app.inject({
      method: 'POST',
      url: '/auth/login',
      payload: { email: account.email.toUpperCase(), password: account.password },
      headers: { 'user-agent': IPHONE },
    });
    expect(login.statusCode).toBe(200);
    expect(login.json()).toEqual({ message: expect.any(String), user: { id: account.id, name: account.name, email: account.email } });
    const phone = sessionCookie(login);

    const list = await t.app.inject({ method: 'GET', url: '/auth/sessions', headers: { cookie: phone } });
    expect(list.statusCode).toBe(200);
    const sessions = list.json<Array<{ current: boolean; userAgent: { platform: string } | null }>>();
    expect(sessions).toHaveLength(2);
    expect(sessions.filter((item) => item.current)).toEqual([expect.objectContaining({ userAgent: { browser: 'Mobile Safari 17', os: 'iOS 17.0', platform: 'mobile' } })]);

    const logout = await t.app.inject({ method: 'DELETE', url: '/auth/logout', headers: { cookie: phone } });
    expect(logout.statusCode).toBe(204);
    expect(logout.body).toBe('');
    expect(logout.cookies.find((item) => item.name === 'session')?.value).toBe('');

    expect((await t.app.inject({ method: 'GET', url: '/auth/session', headers: { cookie: phone } })).statusCode).toBe(401);
    // The other session is untouched.
    expect((await t.app.inject({ method: 'GET', url: '/auth/session', headers: { cookie: account.cookie } })).statusCode).toBe(200);
  });

  it('sets last login on verification and on login', async () => {
    const account = await createAccount(t.app, t.outbox);
    const first = await t.app.repos.users.findById(account.id);
    expect(first?.lastLoginAt).toBeInstanceOf(Date);
    await new Promise((resolve) => setTimeout(resolve, 5));
    await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email: account.email, password: account.password } });
    const second = await t.app.repos.users.findById(account.id);
    expect(second!.lastLoginAt!.getTime()).toBeGreaterThan(first!.lastLoginAt!.getTime());
  });

  it('logout-all revokes every session of the user', async () => {
    const account = await createAccount(t.app, t.outbox);
    const other = await createAccount(t.app, t.outbox);
    const login = await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email: account.email, password: account.password } });
    const second = sessionCookie(login);

    const response = await t.app.inject({ method: 'DELETE', url: '/auth/logout-all', headers: { cookie: second } });
    expect(response.statusCode).toBe(204);
    for (const cookie of [account.cookie, second]) {
      expect((await t.app.inject({ method: 'GET', url: '/auth/session', headers: { cookie } })).statusCode).toBe(401);
    }
    expect(await t.app.repos.sessions.listActiveForUser(account.id)).toEqual([]);
    // Another user's sessions are not touched.
    expect((await t.app.inject({ method: 'GET', url: '/auth/session', headers: { cookie: other.cookie } })).statusCode).toBe(200);
  });

  it('resets a forgotten password with an emailed code, once, and signs out every session', async () => {
    const account = await createAccount(t.app, t.outbox);
    const forgot = await t.app.inject({ method: 'PATCH', url: '/auth/forgot-password', payload: { email: account.email } });
    expect(forgot.statusCode).toBe(202);
    const otp = await t.outbox.code(account.email, { subject: 'Reset your password' });

    const verified = await t.app.inject({ method: 'PATCH', url: '/auth/verify-forgot-password', payload: { email: account.email, otp } });
    expect(verified.statusCode).toBe(200);
    const reset = await t.app.inject({ method: 'PATCH', url: '/auth/reset-password', payload: { email: account.email, password: 'a brand new password' } });
    expect(reset.statusCode, reset.body).toBe(200);

    const again = await t.app.inject({ method: 'PATCH', url: '/auth/reset-password', payload: { email: account.email, password: 'yet another password' } });
    expect(again.statusCode).toBe(401);
    expect((await t.app.inject({ method: 'GET', url: '/auth/session', headers: { cookie: account.cookie } })).statusCode).toBe(401);
    const oldLogin = await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email: account.email, password: account.password } });
    expect(oldLogin.statusCode).toBe(401);
    const newLogin = await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email: account.email, password: 'a brand new password' } });
    expect(newLogin.statusCode).toBe(200);
  });

  it('changes the password with a session and the current one, keeping only this session', async () => {
    const account = await createAccount(t.app, t.outbox);
    const other = sessionCookie(await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email: account.email, password: account.password } }));
    const reset = await t.app.inject({
      method: 'PATCH',
      url: '/auth/reset-password',
      headers: { cookie: account.cookie },
      payload: { oldPassword: account.password, password: 'changed password 123' },
    });
    expect(reset.statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/auth/session', headers: { cookie: account.cookie } })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/auth/session', headers: { cookie: other } })).statusCode).toBe(401);
    const login = await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email: account.email, password: 'changed password 123' } });
    expect(login.statusCode).toBe(200);
  });

  it('a second signup before verification answers 201 and replaces the code', async () => {
    const email = uniqueEmail('again');
    await t.app.inject({ method: 'POST', url: '/auth/signup', payload: { name: 'First', email, password: 'first password' } });
    const firstCode = await t.outbox.code(email);
    const again = await t.app.inject({ method: 'POST', url: '/auth/signup', payload: { name: 'Second', email, password: 'second password' } });
    expect(again.statusCode).toBe(201);
    const emails = (await t.outbox.all()).filter((item) => item.to === email);
    expect(emails).toHaveLength(2);
    const secondCode = /code is (\d{6})/.exec(emails[1]!.raw)![1]!;

    if (firstCode !== secondCode) {
      const stale = await t.app.inject({ method: 'POST', url: '/auth/verify-email', payload: { email, otp: firstCode } });
      expect(stale.statusCode).toBe(400);
    }
    const verify = await t.app.inject({ method: 'POST', url: '/auth/verify-email', payload: { email, otp: secondCode } });
    expect(verify.statusCode).toBe(200);
    expect(verify.json<{ user: { name: string } }>().user.name).toBe('Second');
    const login = await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email, password: 'second password' } });
    expect(login.statusCode).toBe(200);
  });
});
