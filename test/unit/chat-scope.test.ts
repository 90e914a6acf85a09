import { describe, expect, it } from 'vitest';
import type { PullRequest } from '../../src/db/schema/index.js';
import { pullRequestScope } from '../../src/services/chat-tools.js';

/** The fields the scope reads; the rest of a stored pull request does not enter it. */
const pullRequest = (overrides: Partial<PullRequest>): PullRequest =>
  ({
    id: '5d0f6a52-3b1e-4a54-9d39-0f3c2b0a1e77',
    prId: 1_234_567,
    prNumber: 42,
    title: 'Fix the average',
    repositoryName: 'team/stats',
    state: 'open',
    reviewStatus: 'completed',
    updatedAt: new Date('2026-12-01T10:00:00.000Z'),
    htmlUrl: 'https://github.com/team/stats/pull/42',
    ...overrides,
  }) as PullRequest;

describe("a command's chat scope: its own pull request and nothing else", () => {
  const pr = pullRequest({});
  const scope = pullRequestScope(pr);

  it('finds the pull request by its API id or its internal id, and no other', async () => {
    expect(await scope.find(pr.prId)).toBe(pr);
    expect(await scope.find(String(pr.prId))).toBe(pr);
    expect(await scope.find(pr.id.toUpperCase())).toBe(pr);
    expect(await scope.find(pr.prId + 1)).toBeUndefined();
    expect(await scope.find('c3a8e0a4-1111-4a54-9d39-0f3c2b0a1e77')).toBeUndefined();
    expect(await scope.find('not an id')).toBeUndefined();
  });

  it('lists only that pull request, when the filters take it', async () => {
    expect(await scope.list({})).toEqual([
      { prId: pr.prId, number: 42, title: 'Fix the average', repository: 'team/stats', state: 'open', reviewStatus: 'completed', updatedAt: '2026-12-01T10:00:00.000Z', htmlUrl: pr.htmlUrl },
    ]);
    expect(await scope.list({ search: 'AVERAGE', status: 'completed' })).toHaveLength(1);
    expect(await scope.list({ search: 'billing' })).toEqual([]);
    expect(await scope.list({ status: 'failed' })).toEqual([]);
  });

  it("names another host's pull request by its internal id", async () => {
    const other = pullRequest({ prId: -17 });
    expect((await pullRequestScope(other).list({}))[0]!.prId).toBe(other.id);
    expect(await pullRequestScope(other).find(other.id)).toBe(other);
  });
});
