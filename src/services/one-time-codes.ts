import type { OtpRecord } from '../db/schema/index.js';
import { AppError } from '../lib/app-error.js';
import { constantTimeEqual, generateOtp, hmacHex } from '../lib/crypto/tokens.js';
import type { NewOtpRecord, OtpRepository } from '../repositories/otp-repository.js';

export const OTP_TTL_MS = 10 * 60 * 1000;
export const OTP_MAX_ATTEMPTS = 5;

/** Record keys: the email for signup, `forgot:<email>` for recovery. */
export const signupKey = (email: string) => email;
export const recoveryKey = (email: string) => `forgot:${email}`;

/**
 * Six-digit codes, stored as an HMAC bound to their record key (a leaked table cannot be brute
 * forced offline without the server's key), valid ten minutes, void after five tries.
 */
export class OneTimeCodes {
  constructor(
    private readonly records: OtpRepository,
    private readonly hmacKey: Buffer,
  ) {}

  /** Issues a new code for `key`, replacing any earlier one, and returns it for the email. */
  async issue(key: string, extras: Pick<NewOtpRecord, 'name' | 'passwordHash'> = {}): Promise<string> {
    const code = generateOtp();
    await this.records.replace({ key, otpHash: this.hash(key, code), expiresAt: new Date(Date.now() + OTP_TTL_MS), ...extras });
    return code;
  }

  /** The record if `code` is right; a 400 otherwise. Every try counts, right or wrong. */
  async check(key: string, code: string): Promise<OtpRecord> {
    const record = await this.records.claimAttempt(key, OTP_MAX_ATTEMPTS);
    if (record === undefined) {
      const existing = await this.records.find(key);
      if (existing !== undefined && existing.attempts >= OTP_MAX_ATTEMPTS && existing.expiresAt > new Date()) {
        throw new AppError('BAD_REQUEST', 'Too many wrong codes: this code is void, request a new one');
      }
      throw new AppError('BAD_REQUEST', 'Invalid or expired code');
    }
    if (!constantTimeEqual(this.hash(key, code), record.otpHash)) {
      throw new AppError(
        'BAD_REQUEST',
        record.attempts >= OTP_MAX_ATTEMPTS ? 'Too many wrong codes: this code is void, request a new one' : 'Invalid or expired code',
      );
    }
    return record;
  }

  private hash(key: string, code: string) {
    return hmacHex(this.hmacKey, `${key}\n${code}`);
  }
}
