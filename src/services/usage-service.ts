import type { Owner } from '../domain/owners.js';
import type { UsageRepository } from '../repositories/usage-repository.js';

export interface UsageSummary {
  utilizedCost: number;
  allowedExpenditureLimit: number;
}

/** Spend against the free platform allowance: a user's, or an organization's (the same amount, decisions.md §15). */
export class UsageService {
  constructor(
    private readonly usage: UsageRepository,
    private readonly allowanceUsd: number,
  ) {}

  async summary(owner: Owner): Promise<UsageSummary> {
    const row = await this.usage.getOrCreate(owner);
    return { utilizedCost: roundUsd(row.inputCost + row.outputCost), allowedExpenditureLimit: this.allowanceUsd };
  }
}

/** Costs are kept to 10 decimal places; the API shows them to the micro-dollar. */
export const roundUsd = (value: number) => Math.round(value * 1e6) / 1e6;
