import type { UserRepository } from '../repositories/user-repository.js';

/**
 * Who runs this service (decisions.md §13): the accounts whose email is in OPERATOR_EMAILS, or,
 * when it is unset, the first account created on the database.
 */
export class Operators {
  constructor(
    private readonly emails: string[],
    private readonly users: UserRepository,
  ) {}

  async isOperator(userId: string): Promise<boolean> {
    if (this.emails.length === 0) return (await this.users.firstId()) === userId;
    const user = await this.users.findById(userId);
    return user !== undefined && this.emails.includes(user.email);
  }
}
