import { and, asc, eq, ne, sql } from 'drizzle-orm';
import type { Database, Executor } from '../db/database.js';
import { users, type User } from '../db/schema/index.js';

export type NewUser = typeof users.$inferInsert;
export type UserChanges = Partial<
  Pick<User, 'name' | 'email' | 'emailNotification' | 'password' | 'lastLoginAt' | 'codehostUserId' | 'codehostUsername' | 'codehostToken' | 'codehostRefreshToken' | 'codehostTokenExpiresAt'>
>;

export class UserRepository {
  constructor(private readonly db: Database) {}

  async findById(id: string, executor: Executor = this.db): Promise<User | undefined> {
    const [user] = await executor.select().from(users).where(eq(users.id, id)).limit(1);
    return user;
  }

  /** Emails are stored lowercase; callers pass them normalized. */
  async findByEmail(email: string): Promise<User | undefined> {
    const [user] = await this.db.select().from(users).where(eq(users.email, email)).limit(1);
    return user;
  }

  /** The first account created on the database (the operator when OPERATOR_EMAILS is unset). */
  async firstId(): Promise<string | undefined> {
    const [user] = await this.db.select({ id: users.id }).from(users).orderBy(asc(users.createdAt), asc(users.id)).limit(1);
    return user?.id;
  }

  async findByCodehostId(codehostUserId: number): Promise<User | undefined> {
    const [user] = await this.db.select().from(users).where(eq(users.codehostUserId, codehostUserId)).limit(1);
    return user;
  }

  /**
   * GitHub logins can be renamed and then taken by someone else: a login still held by another
   * GitHub id is stale and is released before it is given to its new holder.
   */
  async releaseStaleUsername(login: string, holderId: number, executor: Executor = this.db): Promise<void> {
    await executor
      .update(users)
      .set({ codehostUsername: null })
      .where(and(eq(users.codehostUsername, login), ne(users.codehostUserId, holderId)));
  }

  async create(values: NewUser, executor: Executor = this.db): Promise<User> {
    const [user] = await executor.insert(users).values(values).returning();
    return user!;
  }

  async update(id: string, changes: UserChanges, executor: Executor = this.db): Promise<User | undefined> {
    // A new address is not proven yet; the same one sent again keeps its proof (one statement: no race).
    const emailVerified = changes.email === undefined ? undefined : sql<boolean>`${users.emailVerified} and ${users.email} = ${changes.email}`;
    const [user] = await executor
      .update(users)
      .set({ ...changes, ...(emailVerified && { emailVerified }) })
      .where(eq(users.id, id))
      .returning();
    return user;
  }

  async delete(id: string, executor: Executor = this.db): Promise<void> {
    await executor.delete(users).where(eq(users.id, id));
  }
}
