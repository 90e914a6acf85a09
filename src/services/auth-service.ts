import type { Mailer } from '../adapters/mail/mailer.js';
import type { Database } from '../db/database.js';
import { isUniqueViolation } from '../db/errors.js';
import type { User } from '../db/schema/index.js';
import { AppError } from '../lib/app-error.js';
import { hashPassword, verifyPassword } from '../lib/crypto/passwords.js';
import type { Logger } from '../lib/logger.js';
import type { OtpRepository } from '../repositories/otp-repository.js';
import type { UserRepository } from '../repositories/user-repository.js';
import type { ApiTokenService } from './api-token-service.js';
import type { SessionInfo, SessionService } from './session-service.js';
import { recoveryEmail, verificationEmail } from './auth-emails.js';
import { OTP_TTL_MS, recoveryKey, signupKey, type OneTimeCodes } from './one-time-codes.js';

export interface AuthServiceDeps {
  db: Database;
  users: UserRepository;
  otpRecords: OtpRepository;
  codes: OneTimeCodes;
  sessions: SessionService;
  apiTokens: ApiTokenService;
  mailer: Mailer;
  publicUrl: string;
  log: Logger;
}

export interface SignedIn {
  token: string;
  session: SessionInfo;
  user: Pick<User, 'id' | 'name' | 'email'>;
}

const publicUser = ({ id, name, email }: User) => ({ id, name, email });

export class AuthService {
  constructor(private readonly deps: AuthServiceDeps) {}

  /** No user row yet: the pending account lives in the OTP record until the email is verified. */
  async signup(input: { name: string; email: string; password: string }): Promise<void> {
    if (await this.deps.users.findByEmail(input.email)) {
      throw new AppError('CONFLICT', 'An account with this email already exists');
    }
    const passwordHash = await hashPassword(input.password);
    const code = await this.deps.codes.issue(signupKey(input.email), { name: input.name, passwordHash });
    await this.send(verificationEmail(input.email, input.name, code, this.deps.publicUrl));
  }

  async verifyEmail(input: { email: string; otp: string }, userAgent: string | undefined): Promise<SignedIn> {
    await this.deps.codes.check(signupKey(input.email), input.otp);
    const user = await this.deps.db.transaction(async (tx) => {
      const pending = await this.deps.otpRecords.consume(signupKey(input.email), tx);
      if (pending === undefined || pending.passwordHash === null || pending.name === null) {
        throw new AppError('BAD_REQUEST', 'Invalid or expired code');
      }
      try {
        return await this.deps.users.create(
          { name: pending.name, email: input.email, password: pending.passwordHash, loginMethod: 'email', emailVerified: true, lastLoginAt: new Date() },
          tx,
        );
      } catch (error) {
        if (isUniqueViolation(error)) throw new AppError('CONFLICT', 'An account with this email already exists');
        throw error;
      }
    });
    return this.signIn(user, userAgent);
  }

  async login(input: { email: string; password: string }, userAgent: string | undefined): Promise<SignedIn> {
    const user = await this.deps.users.findByEmail(input.email);
    // verifyPassword spends the same time when there is no user, so timing does not tell.
    const valid = await verifyPassword(user?.password, input.password);
    if (user === undefined || !valid) throw new AppError('UNAUTHORIZED', 'Invalid email or password');
    if (!user.isActive) throw new AppError('FORBIDDEN', 'This account is disabled');
    await this.deps.users.update(user.id, { lastLoginAt: new Date() });
    return this.signIn(user, userAgent);
  }

  /**
   * Answers the same whether or not the account exists: the lookup and the email happen after the
   * response, so neither the answer nor its timing tells.
   */
  requestRecovery(email: string): void {
    void (async () => {
      const user = await this.deps.users.findByEmail(email);
      if (user === undefined) return;
      const code = await this.deps.codes.issue(recoveryKey(email));
      await this.deps.mailer.send(recoveryEmail(email, code, this.deps.publicUrl));
    })().catch((error: unknown) => this.deps.log.error({ err: error }, 'could not send a recovery code'));
  }

  async verifyRecovery(input: { email: string; otp: string }): Promise<void> {
    await this.deps.codes.check(recoveryKey(input.email), input.otp);
    await this.deps.otpRecords.markVerified(recoveryKey(input.email), new Date());
  }

  /**
   * With a session: the current password is checked, other sessions are signed out. Without one:
   * a recovery code verified in the last ten minutes is spent, and every session is signed out.
   * Either way every API token is revoked (decisions.md §17): a stolen one dies with the password.
   */
  async resetPassword(
    input: { email?: string; oldPassword?: string; password: string },
    session: SessionInfo | null,
  ): Promise<void> {
    const userId = session === null ? await this.spendRecovery(input.email) : await this.checkCurrentPassword(session.userId, input.oldPassword);
    await this.deps.users.update(userId, { password: await hashPassword(input.password) });
    await this.deps.sessions.revokeAll(userId, session?.id);
    await this.deps.apiTokens.revokeAll(userId);
  }

  private async checkCurrentPassword(userId: string, oldPassword: string | undefined): Promise<string> {
    const user = await this.deps.users.findById(userId);
    if (user === undefined) throw new AppError('UNAUTHORIZED', 'Session expired');
    // An account created through GitHub has no password yet: it sets its first one here.
    if (user.password !== null) {
      if (oldPassword === undefined) throw new AppError('BAD_REQUEST', 'oldPassword is required', [{ path: 'oldPassword', message: 'Required' }]);
      if (!(await verifyPassword(user.password, oldPassword))) throw new AppError('FORBIDDEN', 'The current password is incorrect');
    }
    return user.id;
  }

  private async spendRecovery(email: string | undefined): Promise<string> {
    if (email === undefined) throw new AppError('BAD_REQUEST', 'email is required', [{ path: 'email', message: 'Required' }]);
    const record = await this.deps.otpRecords.consumeVerified(recoveryKey(email), new Date(Date.now() - OTP_TTL_MS));
    const user = record && (await this.deps.users.findByEmail(email));
    if (!user) throw new AppError('UNAUTHORIZED', 'Verify a recovery code first, or sign in');
    return user.id;
  }

  private async signIn(user: User, userAgent: string | undefined): Promise<SignedIn> {
    const { token, session } = await this.deps.sessions.create(user.id, userAgent);
    return { token, session, user: publicUser(user) };
  }

  private async send(message: Parameters<Mailer['send']>[0]) {
    try {
      await this.deps.mailer.send(message);
    } catch (error) {
      this.deps.log.error({ err: error }, 'could not send an email');
      throw new AppError('UNAVAILABLE', 'The email could not be sent; try again shortly');
    }
  }
}
