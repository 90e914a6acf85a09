import type { UsageRepository } from '../repositories/usage-repository.js';

export interface UsageSummary {
  utilizedCost: number;
  allowedExpenditureLimit: number;
}

/** Spend against the free platform allowance. */
export class UsageService {
  constructor(
    private readonly usage: UsageRepository,
    private readonly allowanceUsd: number,
  ) {}

  async summary(userId: string): Promise<UsageSummary> {
    const row = await this.usage.getOrCreate(userId);
    return { utilizedCost: roundUsd(row.inputCost + row.outputCost), allowedExpenditureLimit: this.allowanceUsd };
  }
}

/** Costs are kept to 10 decimal places; the API shows them to the micro-dollar. */
export const roundUsd = (value: number) => Math.round(value * 1e6) / 1e6;
