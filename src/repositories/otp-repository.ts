import { and, eq, gt, isNotNull, lt, sql } from 'drizzle-orm';
import type { Database, Executor } from '../db/database.js';
import { otpRecords, type OtpRecord } from '../db/schema/index.js';

export type NewOtpRecord = Omit<typeof otpRecords.$inferInsert, 'attempts' | 'verifiedAt' | 'createdAt'>;

export class OtpRepository {
  constructor(private readonly db: Database) {}

  /** A new code for the same key replaces the old one, with its attempt count reset. */
  async replace(record: NewOtpRecord): Promise<void> {
    await this.db
      .insert(otpRecords)
      .values(record)
      .onConflictDoUpdate({
        target: otpRecords.key,
        set: {
          otpHash: record.otpHash,
          expiresAt: record.expiresAt,
          name: record.name ?? null,
          passwordHash: record.passwordHash ?? null,
          attempts: 0,
          verifiedAt: null,
          createdAt: new Date(),
        },
      });
  }

  async find(key: string): Promise<OtpRecord | undefined> {
    const [record] = await this.db.select().from(otpRecords).where(eq(otpRecords.key, key)).limit(1);
    return record;
  }

  /**
   * Counts one try against a live record and returns it, or nothing when the record is missing,
   * expired or out of tries. Counting before comparing keeps concurrent guesses within the limit.
   */
  async claimAttempt(key: string, maxAttempts: number): Promise<OtpRecord | undefined> {
    const [record] = await this.db
      .update(otpRecords)
      .set({ attempts: sql`${otpRecords.attempts} + 1` })
      .where(and(eq(otpRecords.key, key), lt(otpRecords.attempts, maxAttempts), gt(otpRecords.expiresAt, new Date())))
      .returning();
    return record;
  }

  async markVerified(key: string, at: Date): Promise<void> {
    await this.db.update(otpRecords).set({ verifiedAt: at }).where(eq(otpRecords.key, key));
  }

  /** Deletes and returns the record, so that of two concurrent uses only one gets it. */
  async consume(key: string, executor: Executor = this.db): Promise<OtpRecord | undefined> {
    const [record] = await executor.delete(otpRecords).where(eq(otpRecords.key, key)).returning();
    return record;
  }

  /** Consumes a record only if its code was verified after `since`. */
  async consumeVerified(key: string, since: Date): Promise<OtpRecord | undefined> {
    const [record] = await this.db
      .delete(otpRecords)
      .where(and(eq(otpRecords.key, key), isNotNull(otpRecords.verifiedAt), gt(otpRecords.verifiedAt, since)))
      .returning();
    return record;
  }
}
