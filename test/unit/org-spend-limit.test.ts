import { describe, expect, it } from 'vitest';
import { limitDollars, pullRequestOwner, spendLimitReason } from '../../src/domain/owners.js';

describe("an organization's spend limit as the refusal writes it (decisions.md §15)", () => {
  it('has two decimals, more under a cent', () => {
    expect(limitDollars(0)).toBe('0.00');
    expect(limitDollars(25)).toBe('25.00');
    expect(limitDollars(12.345)).toBe('12.35');
    expect(limitDollars(0.01)).toBe('0.01');
    expect(limitDollars(0.005)).toBe('0.005');
    expect(spendLimitReason(100)).toBe("the organization's monthly spend limit of $100.00 is reached");
  });

  it('a pull request belongs to its organization when it has one, else to its user', () => {
    expect(pullRequestOwner({ userId: 'u', orgId: null })).toEqual({ kind: 'user', id: 'u' });
    expect(pullRequestOwner({ userId: 'u', orgId: 'o' })).toEqual({ kind: 'org', id: 'o' });
  });
});
