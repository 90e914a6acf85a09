import { describe, expect, it } from 'vitest';
import { chunkBudget, RESERVED_UP_TO_CHUNKS } from '../../src/review/prepare/chunk-budget.js';
import type { DiffFile } from '../../src/review/prepare/diff/diff-types.js';

/** One file whose diff is `tokens` tokens as the budget estimates them (4 bytes a token). */
const diffOf = (tokens: number): DiffFile[] => [{ path: 'a.ts', oldPath: 'a.ts', status: 'modified', binary: false, hunks: [], additions: 1, deletions: 0, diffBytes: tokens * 4 }];
const sizing = { contextLength: 32_000, overhead: 2_000, outputReserve: 4_000, level: 'full' } as const;
const withoutContext = 32_000 - 2_000 - 4_000;

describe('chunk budget', () => {
  it('a diff of at most four full chunks keeps the mode\'s share for the code; a larger one keeps none and is large in any mode', () => {
    const small = diffOf(withoutContext * RESERVED_UP_TO_CHUNKS);
    const large = diffOf(withoutContext * RESERVED_UP_TO_CHUNKS + 1);
    expect(chunkBudget({ ...sizing, mode: 'focused', reviewable: small })).toEqual({ tokens: withoutContext - 6_400, withoutContext, keepsContextRoom: true, large: false });
    expect(chunkBudget({ ...sizing, mode: 'quick', reviewable: small })).toMatchObject({ keepsContextRoom: false, large: false });
    expect(chunkBudget({ ...sizing, mode: 'focused', reviewable: large })).toEqual({ tokens: withoutContext, withoutContext, keepsContextRoom: false, large: true });
    expect(chunkBudget({ ...sizing, mode: 'quick', reviewable: large })).toMatchObject({ large: true });
  });
});
